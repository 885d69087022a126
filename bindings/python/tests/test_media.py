"""Media streams through the Python binding (issue 35, docs/MEDIA.md): defining requests that
retrieve streams, a stream's file, and reading it as a binary file object in pieces."""
import hashlib
import os
import urllib.error
import urllib.request

import pytest

from offline_odata import HTTPError, MisuseError, NetworkError, NotFoundError, SemanticError, Store
from conftest import REPOSITORY, _load, backends

SIZE = 300_000


@pytest.fixture(scope="module")
def media():
    server = backends.start_v4_media(count=3, size=SIZE)
    yield server
    server.stop()


def served(server, url):
    with urllib.request.urlopen(server.url(url), timeout=30) as answer:
        return answer.read()


def test_streams_come_with_their_defining_request_and_read_as_files(media, tmp_path):
    with Store(tmp_path / "media.store", service_root=media.service_root,
               stream_requests={"Documents": "Documents"}, defining_requests={"Notes": "Notes"}) as store:
        store.download()
        path, length, content_type = store.stream_file("Documents(2)/$value")
        assert length == SIZE and content_type == "application/pdf"
        assert path.startswith(str(tmp_path / "media.store.streams"))
        digest = hashlib.sha256()
        with store.open_stream("Documents(2)") as stream:
            assert stream.readable() and "b" in stream.mode
            while chunk := stream.read(65536):
                digest.update(chunk)
        assert digest.hexdigest() == hashlib.sha256(served(media, "Documents(2)/$value")).hexdigest()
        with pytest.raises(NotFoundError):
            store.stream_file("Documents(42)/$value")
        with pytest.raises(SemanticError):
            store.stream_file("Notes(1)/$value")
        assert store.check() == []


def test_get_of_a_media_value_gives_the_streams_bytes_from_its_file(media, tmp_path):
    with Store(tmp_path / "value.store", service_root=media.service_root,
               stream_requests={"Documents": "Documents"}) as store:
        content = store.get("Documents(3)/$value")
        assert isinstance(content, bytes) and content == served(media, "Documents(3)/$value")
        answer = store.execute("GET", "Documents(3)/$value")
        assert answer.content_type == "application/pdf" and answer.body == content
        with pytest.raises(NotFoundError):
            store.get("Documents(42)/$value")
        with pytest.raises((SemanticError, HTTPError)):  # not offline: the service refuses it too
            store.get("Notes(1)/$value")
    with Store(tmp_path / "plain.store", service_root=media.service_root,
               defining_requests={"Documents": "Documents"}) as plain:
        with pytest.raises(NotFoundError, match="not downloaded"):
            plain.get("Documents(1)/$value")


def test_a_stream_past_the_limit_is_refused(media, tmp_path):
    # The first open downloads: the stream is refused there, with the limit in the message.
    with pytest.raises(HTTPError) as refused:
        Store(tmp_path / "small.store", service_root=media.service_root,
              stream_requests={"Documents": "Documents"}, max_stream_size=1000)
    assert "larger than the 1000 bytes" in str(refused.value)
    folder = tmp_path / "small.store.streams"
    assert not folder.exists() or list(folder.iterdir()) == []
    with pytest.raises((TypeError, MisuseError)):
        Store(tmp_path / "bad.store", service_root=media.service_root, max_stream_size=-1)


def test_a_media_entity_created_offline_uploads_as_post_then_patch(tmp_path):
    server = backends.start_v4_media(count=1, size=100)
    try:
        content = bytes(range(256)) * 400
        photo = tmp_path / "photo.bin"
        photo.write_bytes(content)
        with Store(tmp_path / "create.store", service_root=server.service_root,
                   stream_requests={"Documents": "Documents"}) as store:
            created = store.create_media("Documents", photo, "image/png", {"title": "from Python"})
            assert created.status == 201
            with store.open_stream("Documents(-1)") as stream:
                assert stream.read() == content
            assert store.upload().sent == 1
            assert served(server, "Documents(2)/$value") == content
            assert store.get("Documents(2)")["title"] == "from Python"
            path, length, content_type = store.stream_file("Documents(2)/$value")
            assert length == len(content) and content_type == "image/png"
            with pytest.raises(SemanticError):
                store.create_media("Notes", photo, "image/png")
    finally:
        server.stop()


other_origin_module = _load("ood_test_other_origin", os.path.join(REPOSITORY, "Tests", "backends", "other_origin.py"))


def hostile(server, settings: bytes) -> None:
    request = urllib.request.Request(server.origin + "/_media_hostile", data=settings, method="POST",
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).close()


def test_a_location_off_the_services_origin_is_refused_and_the_create_is_not_lost(tmp_path):
    """The service creates the media entity but answers with a `Location` on another origin: the
    engine refuses it and sends nothing there; the create stays (in doubt), and the next upload
    finds the entity by its stream and finishes it there, without a second POST."""
    server = backends.start_v4_media(count=1, size=100)
    elsewhere = other_origin_module.OtherOrigin()
    try:
        content = bytes(range(256)) * 300
        photo = tmp_path / "photo.bin"
        photo.write_bytes(content)
        with Store(tmp_path / "hostile.store", service_root=server.service_root,
                   stream_requests={"Documents": "Documents"}) as store:
            store.create_media("Documents", photo, "image/png", {"title": "kept"})
            hostile(server, f'{{"location": "http://127.0.0.1:{elsewhere.port}/service/Documents(2)"}}'.encode())
            with pytest.raises(NetworkError) as refused:
                store.upload()
            assert "leaves the service's origin" in str(refused.value) and "refused" in str(refused.value)
            assert elsewhere.received == []
            queue = store.request_queue()
            assert [(q["method"], q["state"]) for q in queue] == [("POST", "inDoubt")]
            assert store.get("Documents(-1)")["title"] == "kept"

            hostile(server, b"{}")
            assert store.upload().sent == 1
            assert elsewhere.received == []
            assert store.request_queue() == [] and store.error_archive() == []
            assert served(server, "Documents(2)/$value") == content
            assert store.get("Documents(2)")["title"] == "kept"
            with pytest.raises(urllib.error.HTTPError) as missing:  # created once only
                urllib.request.urlopen(server.url("Documents(3)"), timeout=30).close()
            assert missing.value.code == 404
    finally:
        elsewhere.stop()
        server.stop()


def test_a_stream_replaced_and_a_media_entity_deleted_offline_upload_in_order(tmp_path):
    server = backends.start_v4_media(count=2, size=1_000)
    try:
        content = bytes(reversed(range(256))) * 500
        scan = tmp_path / "scan.bin"
        scan.write_bytes(content)
        with Store(tmp_path / "replace.store", service_root=server.service_root,
                   stream_requests={"Documents": "Documents"}) as store:
            store.replace_stream("Documents(1)", scan, "image/webp")
            store.execute("DELETE", "Documents(2)")
            assert store.get("Documents(1)/$value") == content
            assert [(q["method"], q["url"]) for q in store.request_queue()] == [
                ("PUT", "Documents(1)/$value"), ("DELETE", "Documents(2)")]
            assert store.upload().sent == 2
            assert served(server, "Documents(1)/$value") == content
            with pytest.raises(urllib.error.HTTPError):
                urllib.request.urlopen(server.url("Documents(2)"), timeout=30).close()
            path, length, content_type = store.stream_file("Documents(1)")
            assert length == len(content) and content_type == "image/webp"
            assert store.check() == []
            with pytest.raises(NotFoundError):
                store.replace_stream("Documents(42)", scan, "image/webp")
    finally:
        server.stop()


def test_stream_properties_read_offline_and_replace(tmp_path):
    """V4 `Edm.Stream` properties (Inspections.photo, .signature): downloaded with a defining
    request that retrieves streams, read by `get`, `stream_file` and `open_stream`, replaced offline."""
    server = backends.start_v4_media(count=1, size=2_000)
    try:
        with Store(tmp_path / "props.store", service_root=server.service_root,
                   stream_requests={"Inspections": "Inspections"}) as store:
            store.download()
            photo = served(server, "Inspections(2)/photo")
            assert len(photo) == 2_000
            assert store.get("Inspections(2)/photo") == photo
            path, length, content_type = store.stream_file("Inspections(2)/photo")
            assert length == 2_000 and content_type == "image/jpeg"
            with store.open_stream("Inspections(1)/signature") as stream:
                assert stream.read() == served(server, "Inspections(1)/signature")
            with pytest.raises(NotFoundError):  # the service has no signature for it
                store.get("Inspections(3)/signature")
            with pytest.raises(SemanticError):
                store.stream_file("Inspections(1)/$value")
            content = b"\x89PNG" + bytes(range(256)) * 40
            (tmp_path / "p.png").write_bytes(content)
            store.replace_stream("Inspections(2)/photo", tmp_path / "p.png", "image/png")
            assert store.get("Inspections(2)/photo") == content
            assert [(q["method"], q["url"]) for q in store.request_queue()] == [("PUT", "Inspections(2)/photo")]
            assert store.upload().sent == 1
            assert served(server, "Inspections(2)/photo") == content
            assert store.stream_file("Inspections(2)/photo")[1:] == (len(content), "image/png")
            assert store.check() == []
    finally:
        server.stop()


def test_a_large_upload_reports_its_bytes_in_upload_progress_events(tmp_path):
    """A 3 MiB media create: the upload's progress events carry `bytesSent` growing each MiB of the
    stream while it travels, all before the upload's finished event."""
    from offline_odata.events import EventKind
    server = backends.start_v4_media(count=1, size=100)
    try:
        content = bytes(range(256)) * (3 * 4096)  # 3 MiB
        (tmp_path / "big.bin").write_bytes(content)
        with Store(tmp_path / "big.store", service_root=server.service_root,
                   stream_requests={"Documents": "Documents"}) as store:
            store.create_media("Documents", tmp_path / "big.bin", "application/octet-stream", {"title": "large"})
            with store.subscribe() as events:
                assert store.upload().sent == 1
                seen = []
                while (event := events.get(timeout=60)).kind != EventKind.UPLOAD_FINISHED:
                    if event.kind == EventKind.UPLOAD_PROGRESS:
                        seen.append(event.details["bytesSent"])
            growing = [b for a, b in zip([0] + seen, seen) if b > a]
            assert len(growing) >= 3, seen
            assert max(seen) >= len(content)
            assert served(server, "Documents(2)/$value") == content
    finally:
        server.stop()
