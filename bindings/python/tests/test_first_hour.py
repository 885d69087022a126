"""The binding's share of issue 39: ``metadata=`` takes a path too, a ``$metadata`` with a DOCTYPE is
refused with a clear error, and a service root that is not http or https is refused where it is
given."""
from __future__ import annotations

import os
import pathlib

import pytest

from offline_odata import MetadataError, MisuseError, Store
from conftest import FLIGHT

METADATA = os.path.join(FLIGHT, "metadata-v4.xml")
DEFINING = {"Agencies": "TravelagencyCollection"}


@pytest.mark.parametrize("given", [METADATA, pathlib.Path(METADATA)], ids=["str", "Path"])
def test_metadata_given_a_path_reads_the_file(tmp_path, given):
    with Store.open(tmp_path / "from-path.store", metadata=given, defining_requests=DEFINING) as store:
        assert "TravelagencyCollection" in [entity_set["name"] for entity_set in store.metadata()["entitySets"]]


def test_a_metadata_path_that_cannot_be_read_is_named(tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(ValueError, match="cannot read the \\$metadata file"):
        Store.open(tmp_path / "x.store", metadata=folder, defining_requests=DEFINING)


def test_a_metadata_document_with_a_doctype_is_refused(tmp_path):
    with open(METADATA, encoding="utf-8") as document:
        text = document.read()
    head, _, rest = text.partition("<edmx:Edmx")
    hostile = head + '<!DOCTYPE edmx:Edmx [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>\n<edmx:Edmx' + rest
    with pytest.raises(MetadataError, match="DOCTYPE declaration"):
        Store.open(tmp_path / "hostile.store", metadata=hostile, defining_requests=DEFINING)
    # Nothing of the document reached the file: at most the empty store a refused create leaves.
    store = tmp_path / "hostile.store"
    assert not store.exists() or store.stat().st_size < 1 << 20


@pytest.mark.parametrize("root", ["ftp://example.org/odata/", "file:///etc/", "gopher://example.org/"])
def test_a_service_root_that_is_not_http_is_refused_where_it_is_given(tmp_path, root):
    with pytest.raises(MisuseError, match="must be an http or https URL"):
        Store.open(tmp_path / "x.store", service_root=root)
    assert not (tmp_path / "x.store").exists()
