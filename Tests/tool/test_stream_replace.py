"""`offline-odata stream replace` (issue 35, docs/MEDIA.md): a media entity's stream and a V4
stream property replaced offline from a file, then uploaded as PUTs, against the V4 media service."""
import json
import urllib.request

import backends


def served(server, url: str) -> bytes:
    with urllib.request.urlopen(server.url(url), timeout=30) as answer:
        return answer.read()


def test_stream_replace_queues_a_put_that_the_upload_sends(tool, tmp_path):
    server = backends.start_v4_media(count=2, size=3_000)
    try:
        metadata = tmp_path / "media.xml"
        metadata.write_bytes(served(server, "$metadata"))
        store = tmp_path / "media.store"
        created = tool("store", "create", store, "--metadata", metadata, "--service", server.service_root,
                       "--defining", "Documents=Documents", "--defining", "Inspections=Inspections",
                       "--streams", "Documents", "--streams", "Inspections")
        assert created.returncode == 0, created.stderr
        assert tool("download", store).returncode == 0
        scan, photo = tmp_path / "scan.pdf", tmp_path / "site.jpg"
        scan.write_bytes(b"%PDF-" + bytes(range(256)) * 30)
        photo.write_bytes(b"\xff\xd8" + bytes(reversed(range(256))) * 20)

        replaced = tool("stream", "replace", store, "Documents(2)", scan, "--type", "application/pdf", "--json")
        assert replaced.returncode == 0, replaced.stderr
        assert json.loads(replaced.stdout) == {"status": 204, "url": "Documents(2)", "length": scan.stat().st_size,
                                               "contentType": "application/pdf"}
        text = tool("stream", "replace", store, "Inspections(1)/photo", photo, "--type", "image/jpeg")
        assert text.returncode == 0, text.stderr
        assert text.stdout.strip() == f"replaced Inspections(1)/photo ({photo.stat().st_size} bytes, image/jpeg)"
        # Readable offline at once.
        copied = tmp_path / "copy.jpg"
        assert tool("stream", "get", store, "Inspections(1)/photo", "--output", copied).returncode == 0
        assert copied.read_bytes() == photo.read_bytes()

        refused = tool("stream", "replace", store, "Notes(1)", scan, "--type", "text/plain", "--json")
        assert refused.returncode == 1 and json.loads(refused.stdout)["error"]["code"] == "OOD_SEMANTIC"
        missing = tool("stream", "replace", store, "Documents(42)", scan, "--type", "application/pdf")
        assert missing.returncode == 1 and "no entity" in missing.stderr

        uploaded = tool("upload", store)
        assert uploaded.returncode == 0, uploaded.stderr
        assert served(server, "Documents(2)/$value") == scan.read_bytes()
        assert served(server, "Inspections(1)/photo") == photo.read_bytes()
        checked = tool("store", "check", store)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    finally:
        server.stop()


def test_the_upload_of_a_large_stream_shows_its_bytes_while_they_travel(tool, tmp_path):
    """`upload` on a terminal: the bar is redrawn as a 3 MiB stream's PUT travels (an upload
    progress event each MiB), its "sent" bytes growing before the request is answered (0/1)."""
    import re

    from test_service import run_on_terminal
    server = backends.start_v4_media(count=1, size=1_000)
    try:
        metadata = tmp_path / "media.xml"
        metadata.write_bytes(served(server, "$metadata"))
        store = tmp_path / "big.store"
        created = tool("store", "create", store, "--metadata", metadata, "--service", server.service_root,
                       "--defining", "Documents=Documents", "--streams", "Documents")
        assert created.returncode == 0, created.stderr
        assert tool("download", store).returncode == 0
        big = tmp_path / "big.bin"
        big.write_bytes(bytes(range(256)) * (3 * 4096))
        assert tool("stream", "replace", store, "Documents(1)", big, "--type", "application/octet-stream").returncode == 0

        status, terminal, piped = run_on_terminal(["upload", str(store)], "stderr")
        assert status == 0, terminal + piped
        frames = [frame for frame in terminal.split("\r") if "0/1 requests" in frame]
        sent = [float(m.group(1)) for m in (re.search(r"([\d.]+) MB sent", f) for f in frames) if m]
        assert len(set(sent)) >= 3 and sent == sorted(sent), terminal
        assert max(sent) >= 3.0, terminal
        assert served(server, "Documents(1)/$value") == big.read_bytes()
    finally:
        server.stop()
