"""``Store.check_service()`` and ``Store.adopt_service_model()`` (issue 34): the service's $metadata
against the store's model, and the event a changed model posts."""
import sys
import threading
from pathlib import Path

import pytest

from offline_odata import EventKind, MisuseError, Store
from conftest import US_AGENCIES

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests" / "backends"))
import backends  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[3] / "Examples" / "FlightSample" / "metadata-v4.xml"


def test_an_unchanged_service_is_unchanged_and_nothing_is_adopted(v4, tmp_path):
    with Store.open(tmp_path / "check.store", service_root=v4.service_root,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        check = store.check_service()
        assert check["changed"] is False and check["differences"] == [] and check["impact"] is None
        assert store.check_service()["evidence"] == "sameHash"
        adoption = store.adopt_service_model()
        assert adoption["adopted"] is False and adoption["archived"] == 0


def test_an_unknown_choice_is_refused(v4, tmp_path):
    with Store.open(tmp_path / "choice.store", service_root=v4.service_root,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        with pytest.raises(MisuseError, match="choice"):
            store.adopt_service_model("sideways")


def test_a_compatible_change_is_migrated_by_the_download_with_an_event(tmp_path):
    server = backends.start_v4()
    try:
        with Store.open(tmp_path / "migrate.store", service_root=server.service_root,
                        defining_requests={"Agencies": US_AGENCIES}) as store:
            store.update("TravelagencyCollection('00000001')", {"name": "Queued"})
            changed = tmp_path / "changed.xml"
            text = SAMPLE.read_text(encoding="utf-8")
            changed.write_text(text.replace('<Property Name="url" ', '<Property Name="rating" Type="Edm.Int32"/><Property Name="url" ', 1),
                               encoding="utf-8")
            port = server.port
            server.stop()
            server = backends.start_v4(port=port, metadata=changed)
            check = store.check_service()
            assert [(d["kind"], d["member"], d["impact"]) for d in check["differences"]] == [
                ("propertyAdded", "rating", "compatible")]
            seen = threading.Event()
            details = []

            def on_event(event):
                # The check above announced the change too (not migrated); the download's is migrated.
                if event.kind == EventKind.SERVICE_MODEL_CHANGED and event.details["check"]["migrated"]:
                    details.append(event.details)
                    seen.set()

            subscription = store.subscribe(on_event)
            store.download()
            assert seen.wait(30)
            subscription.close()
            assert details[0]["check"]["differences"][0]["member"] == "rating"
            assert len(store.request_queue()) == 1
            assert "rating" in store.get("TravelagencyCollection('00000001')?$select=rating")
            assert store.upload() == (1, 0)
    finally:
        server.stop()
