"""`offline-odata queue compact`, `request --no-merge` and `upload --no-compact` (issue 25)."""
import json

from test_service import FLIGHT_V4

AGENCY = "TravelagencyCollection('99000051')"


def queue_three(tool, path, *marks):
    """A create and two updates of one agency; `marks` are the extra flags of the second update."""
    for arguments in (["--method", "POST", "TravelagencyCollection", "--body", '{"agencynum":"99000051","name":"A","country":"US"}'],
                      ["--method", "PATCH", AGENCY, "--body", '{"name":"B"}'],
                      ["--method", "PATCH", AGENCY, "--body", '{"city":"Salem"}', *marks]):
        result = tool("request", path, *arguments)
        assert result.returncode == 0, result.stderr


def make_store(tool, tmp_path, service_root, name):
    path = str(tmp_path / name)
    created = tool("store", "create", path, "--metadata", FLIGHT_V4, "--service", service_root,
                   "--defining", "Agencies=TravelagencyCollection")
    assert created.returncode == 0, created.stderr
    return path


def test_queue_compact_merges_and_leaves_a_marked_change(tool, tmp_path):
    path = make_store(tool, tmp_path, "http://127.0.0.1:9/", "compact.store")
    queue_three(tool, path, "--no-merge")
    compacted = tool("queue", "compact", path, "--json")
    assert compacted.returncode == 0, compacted.stderr
    answer = json.loads(compacted.stdout)
    assert answer["queued"] == 2 and len(answer["dropped"]) == 1 and answer["cancelled"] == []
    status = json.loads(tool("status", path, "--json").stdout)
    queued = status["queue"]
    assert [q["method"] for q in queued] == ["POST", "PATCH"]
    assert json.loads(queued[0]["body"]) == {"agencynum": "99000051", "name": "B", "country": "US"}
    assert queued[1]["mergeable"] is False
    again = tool("queue", "compact", path)
    assert again.returncode == 0 and "compacted: 0 requests dropped, 2 queued" in again.stdout


def test_queue_compact_of_a_missing_store_fails(tool, tmp_path):
    result = tool("queue", "compact", str(tmp_path / "nothing.store"))
    assert result.returncode == 1 and "does not exist" in result.stderr


def test_upload_compacts_unless_told_not_to(tool, tmp_path, v4, recording_proxy):
    for flags, changes in (([], ["POST"]), (["--no-compact"], ["POST", "PATCH", "PATCH"])):
        v4.reset()
        path = make_store(tool, tmp_path, recording_proxy.root, f"upload{len(flags)}.store")
        queue_three(tool, path)
        before = len(recording_proxy.requests)
        uploaded = tool("upload", path, "--json", *flags)
        assert uploaded.returncode == 0, uploaded.stderr
        outcome = json.loads(uploaded.stdout)
        assert outcome["sent"] == len(changes) and outcome["compacted"] == 3 - len(changes) and outcome["queued"] == 0
        assert [r.method for r in recording_proxy.requests[before:] if r.method != "GET"] == changes
        read = tool("request", path, "--mode", "online", AGENCY)
        assert read.returncode == 0, read.stderr
        entity = json.loads(read.stdout)
        assert (entity["name"], entity["city"]) == ("B", "Salem")
