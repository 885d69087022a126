"""Encrypted stores through the binding (docs/ENCRYPTION.md): Store(path, key=...) or
passphrase=..., StoreKeyError for a wrong or missing key, Store.rekey; and the independent reader
(Tests/encryption/independent_reader.py, Python's `cryptography`) decrypts what the library wrote."""
from __future__ import annotations

import importlib.util
import os
import sqlite3

import pytest

from offline_odata import Mode, Options, Store, StoreKeyError
from conftest import REPOSITORY, metadata

KEY = bytes(range(32))
MARKER = "MARKER-py-51c2"
AGENCY = {"agencynum": "99000555", "name": MARKER, "city": "Boston", "country": "US"}


def _reader():
    path = os.path.join(REPOSITORY, "Tests", "encryption", "independent_reader.py")
    spec = importlib.util.spec_from_file_location("independent_reader", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _files_containing(folder, needle):
    found = []
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "rb") as f:
            if needle.encode() in f.read():
                found.append(name)
    return found


def test_a_keyed_store_hides_its_data_and_the_independent_reader_finds_it(tmp_path):
    path = tmp_path / "enc.store"
    with Store(path, metadata=metadata("v4"), mode=Mode.OFFLINE, key=KEY) as store:
        store.create("TravelagencyCollection", AGENCY)
        assert _files_containing(tmp_path, MARKER) == []
    assert _files_containing(tmp_path, MARKER) == []
    out = tmp_path / "plain.db"
    _reader().decrypt_store(str(path), str(out), raw_key=KEY)
    with sqlite3.connect(out) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        names = [row[0] for row in db.execute('SELECT name FROM "es/TravelagencyCollection"')]
        assert MARKER in names
        assert db.execute("SELECT count(*) FROM ood_request_queue").fetchone()[0] == 1


def test_a_wrong_or_missing_key_is_a_store_key_error_and_changes_nothing(tmp_path):
    path = tmp_path / "enc.store"
    with Store(path, metadata=metadata("v4"), mode=Mode.OFFLINE, passphrase="py words") as store:
        store.create("TravelagencyCollection", AGENCY)
    before = path.read_bytes()
    with pytest.raises(StoreKeyError):
        Store(path, mode=Mode.OFFLINE, passphrase="py word")
    with pytest.raises(StoreKeyError):
        Store(path, mode=Mode.OFFLINE)
    with pytest.raises(StoreKeyError):
        Store(path, mode=Mode.OFFLINE, key=b"short")
    with pytest.raises(TypeError):
        Store(path, mode=Mode.OFFLINE, key=KEY, passphrase="both")
    assert path.read_bytes() == before
    assert "py words" not in repr(Options(path=path, passphrase="py words"))
    with Store(path, mode=Mode.OFFLINE, passphrase="py words") as store:
        assert len(store.request_queue()) == 1


def test_an_encrypted_store_opens_from_its_file_alone_with_its_key(tmp_path):
    """Store.open_file(path, key=...) (ood_store_open_keyed): the saved model and queue, no options."""
    path = tmp_path / "alone.store"
    with Store(path, metadata=metadata("v4"), mode=Mode.OFFLINE, key=KEY) as store:
        store.create("TravelagencyCollection", AGENCY)
    with Store.open_file(path, key=KEY) as store:
        assert store.entity("TravelagencyCollection('99000555')")["name"] == MARKER
        assert len(store.request_queue()) == 1
    with pytest.raises(StoreKeyError):
        Store.open_file(path)
    with pytest.raises(StoreKeyError):
        Store.open_file(path, key=bytes(32))
    with pytest.raises(StoreKeyError):
        Store.open_file(path, passphrase="not it")


def test_rekey_encrypts_a_plain_store_and_decrypts_it(tmp_path):
    path = tmp_path / "c.store"
    with Store(path, metadata=metadata("v4"), mode=Mode.OFFLINE) as store:
        store.create("TravelagencyCollection", AGENCY)
    assert _files_containing(tmp_path, MARKER) == ["c.store"]
    Store.rekey(path, new_key=KEY)
    assert _files_containing(tmp_path, MARKER) == []
    with pytest.raises(StoreKeyError):
        Store.rekey(path, key=bytes(32), new_passphrase="x")
    Store.rekey(path, key=KEY, new_passphrase="second")
    with Store(path, mode=Mode.OFFLINE, passphrase="second") as store:
        assert len(store.request_queue()) == 1
    Store.rekey(path, passphrase="second")
    with Store(path, mode=Mode.OFFLINE) as store:
        assert len(store.request_queue()) == 1
    assert _files_containing(tmp_path, MARKER) == ["c.store"]


def test_an_open_store_is_rekeyed_and_goes_on_with_its_queue_and_watch(tmp_path):
    """store.rekey(new_key=...) (ood_rekey): the open store encrypted, rekeyed, decrypted, with a
    watch running and the queue kept; Store.rekey(path, ...) still rekeys a closed file."""
    from offline_odata import BusyError, MisuseError
    path = tmp_path / "open.store"
    with Store(path, metadata=metadata("v4"), mode=Mode.OFFLINE) as store:
        store.create("TravelagencyCollection", AGENCY)
        watch = store.watch("TravelagencyCollection/$count")
        assert watch.get(timeout=30).body == b"1"
        with pytest.raises(MisuseError):
            store.rekey()
        store.rekey(new_key=KEY)
        assert _files_containing(tmp_path, MARKER) == []
        store.create("TravelagencyCollection", dict(AGENCY, agencynum="99000556"))
        assert watch.get(timeout=30).body == b"2"  # the watch goes on through the new key
        with Store.open_file(path, key=KEY) as other:
            with pytest.raises(BusyError):
                store.rekey(new_passphrase="open words")
            assert len(other.request_queue()) == 2
        store.rekey(new_passphrase="open words")
        assert store.count("TravelagencyCollection") == 2
        watch.close()
    with pytest.raises(StoreKeyError):
        Store.open_file(path, key=KEY)
    with Store.open_file(path, passphrase="open words") as store:
        assert len(store.request_queue()) == 2
        store.rekey()
    assert _files_containing(tmp_path, MARKER) == ["open.store"]


def test_after_download_and_upload_no_marker_is_in_any_file_of_an_encrypted_store(v4, tmp_path):
    """The acceptance's search: entity values from the service, a queued body, the service URL,
    the defining request's URL and a credential; none in an encrypted store's folder, all but the
    credential (never stored) in a plain store's folder, searched while open and after closing."""
    requests = {"Agencies": "TravelagencyCollection?$filter=country eq 'US'"}
    credential = "pw-9c1f-secret"
    markers = {}
    for number, (name, key) in enumerate((("plain", None), ("encrypted", KEY))):
        folder = tmp_path / name
        folder.mkdir()
        path = folder / "s.store"
        with Store(path, service_root=v4.service_root, defining_requests=requests, key=key,
                   basic_auth=("user", credential)) as store:
            names = sorted(entity["name"] for entity in store.get(requests["Agencies"]))[:10]
            store.create("TravelagencyCollection", dict(AGENCY, agencynum="9900056%d" % number, name=MARKER + "-queued"))
            store.upload()
            store.create("TravelagencyCollection", dict(AGENCY, agencynum="9900057%d" % number, name=MARKER + "-pending"))
            store.download()
            markers[name] = names + [MARKER + "-queued", MARKER + "-pending", v4.service_root.rstrip("/"),
                                     "country eq 'US'"]
            open_found = {m: _files_containing(folder, m) for m in markers[name] + [credential]}
        closed_found = {m: _files_containing(folder, m) for m in markers[name] + [credential]}
        for found in (open_found, closed_found):
            assert found[credential] == []
            if key is None:
                assert all(found[m] for m in markers[name]), found
            else:
                assert all(found[m] == [] for m in markers[name]), found
    assert len(markers["encrypted"]) >= 5
