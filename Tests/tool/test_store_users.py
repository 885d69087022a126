"""A device that changes hands through the tool (docs/SHARED-DEVICE.md): --store-user on every
command, OOD_OTHER_USER for another user, and store hand-over with each choice against the real V4
service behind a recording proxy (which credentials each request carried)."""
import base64
import json
import os

REPOSITORY = os.path.join(os.path.dirname(__file__), "..", "..")
FLIGHT_V4 = os.path.join(REPOSITORY, "Examples", "FlightSample", "metadata-v4.xml")
BODY = '{"agencynum":"99000003","name":"MARKER-alice","city":"Boston","country":"US"}'


def _alice_store(tool, path, proxy):
    created = tool("--store-user", "alice", "store", "create", path, "--metadata", FLIGHT_V4, "--service", proxy.root)
    assert created.returncode == 0, created.stderr
    made = tool("--store-user", "alice", "request", path, "--method", "POST", "TravelagencyCollection", "--body", BODY)
    assert made.returncode == 0, made.stderr


def _served(backend, key):
    """Whether the service holds agency `key` (asked directly, not through the proxy)."""
    import urllib.error
    import urllib.request
    try:
        with urllib.request.urlopen(backend.url(f"TravelagencyCollection('{key}')"), timeout=60) as answer:
            return answer.status == 200
    except urllib.error.HTTPError:
        return False


def _basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_another_user_is_refused(tool, tmp_path, recording_proxy):
    path = str(tmp_path / "shared.store")
    _alice_store(tool, path, recording_proxy)
    for arguments in (["--store-user", "bob", "status", path, "--json"], ["status", path, "--json"]):
        refused = tool(*arguments)
        assert refused.returncode == 1
        error = json.loads(refused.stdout)["error"]
        assert error["code"] == "OOD_OTHER_USER" and error["status"] == 17 and "'alice'" in error["message"], refused.stdout
    assert tool("--store-user", "alice", "status", path).returncode == 0


def test_hand_over_upload_first_discard_and_keep_apart(tool, tmp_path, recording_proxy, v4):
    proxy = recording_proxy
    # Upload first: alice's create reaches the service with her credentials only.
    path = str(tmp_path / "first.store")
    _alice_store(tool, path, proxy)
    mark = len(proxy.requests)
    handed = tool("store", "hand-over", path, "--to", "bob", "--upload-first", "--user", "alice", "--json",
                  env={**os.environ, "OFFLINE_ODATA_PASSWORD": "a-secret"})
    assert handed.returncode == 0, handed.stdout + handed.stderr
    assert json.loads(handed.stdout) == {"previousUser": "alice", "newUser": "bob", "uploaded": 1, "discarded": 0,
                                         "keptAt": None}
    seen = proxy.requests[mark:]
    assert "POST" in {request.method for request in seen}
    assert {request.authorization for request in seen} == {_basic("alice", "a-secret")}
    queue = tool("--store-user", "bob", "status", path, "--json")
    assert queue.returncode == 0 and "MARKER-alice" not in queue.stdout

    # Discard: nothing sent, the record shows alice's change until cleared.
    v4.reset()
    path = str(tmp_path / "discard.store")
    _alice_store(tool, path, proxy)
    mark = len(proxy.requests)
    handed = tool("store", "hand-over", path, "--to", "bob", "--discard", "--json")
    assert handed.returncode == 0 and json.loads(handed.stdout)["discarded"] == 1, handed.stdout
    assert proxy.requests[mark:] == []
    record = tool("--store-user", "bob", "archive", path, "--discarded", "--json")
    assert record.returncode == 0 and "MARKER-alice" in record.stdout and "handOver:alice" in record.stdout
    bobs = tool("--store-user", "bob", "request", path, "TravelagencyCollection('99000003')")
    assert bobs.returncode != 0 or "MARKER-alice" not in bobs.stdout

    # Keep apart: alice's store whole at the kept path, bob's new one empty.
    path = str(tmp_path / "apart.store")
    _alice_store(tool, path, proxy)
    handed = tool("store", "hand-over", path, "--to", "bob", "--keep-apart")
    assert handed.returncode == 0, handed.stderr
    assert "apart.store.alice" in handed.stdout
    kept = tool("--store-user", "alice", "status", path + ".alice", "--json")
    assert kept.returncode == 0 and "MARKER-alice" in tool("--store-user", "alice", "request", path + ".alice",
                                                             "TravelagencyCollection('99000003')").stdout
    assert tool("--store-user", "bob", "status", path + ".alice").returncode == 1
    assert tool("--store-user", "bob", "status", path).returncode == 0


def test_a_kill_during_the_upload_first_hand_over_loses_nothing_and_sends_nothing_twice(tool, tmp_path,
                                                                                         recording_proxy, v4):
    """kill -9 of `store hand-over --upload-first` while one of alice's creates is at the service
    (its answer lost), then the hand-over again: every create on the service exactly once, sent
    once, with alice's credentials; the store ends bob's and empty. OOD_HANDOVER_KILLS runs (2)."""
    import signal
    import subprocess

    proxy = recording_proxy
    runs = int(os.environ.get("OOD_HANDOVER_KILLS", "2"))
    env = {**os.environ, "OFFLINE_ODATA_PASSWORD": "a-secret"}
    for run in range(runs):
        path = str(tmp_path / f"kill{run}.store")
        keys = [f"98{run:02d}{index:04d}" for index in range(3)]
        assert tool("--store-user", "alice", "store", "create", path, "--metadata", FLIGHT_V4,
                    "--service", proxy.root).returncode == 0
        for key in keys:
            body = json.dumps({"agencynum": key, "name": f"kill {run}", "city": "Boston", "country": "US"})
            assert tool("--store-user", "alice", "request", path, "--method", "POST", "TravelagencyCollection",
                        "--body", body).returncode == 0
        victim = run % len(keys)
        mark = len(proxy.requests)

        def posts(requests):
            return [(i, r) for i, r in enumerate(requests) if i >= mark and r.method == "POST"]

        # The victim's create is held at the proxy while the tool is killed; the service gets it after.
        proxy.delays = {"TravelagencyCollection": 0.5}
        process = subprocess.Popen([os.environ["OOD_TOOL"], "store", "hand-over", path, "--to", "bob",
                                    "--upload-first", "--user", "alice"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert proxy.wait_for(lambda requests: len(posts(requests)) > victim, 60)
        process.send_signal(signal.SIGKILL)
        process.wait()
        held = posts(proxy.requests)[victim][0]
        assert proxy.wait_for(lambda requests: requests[held].answer != b"", 60)
        proxy.delays = {}
        # Still alice's, her remaining changes whole.
        assert tool("--store-user", "alice", "status", path).returncode == 0
        again = tool("store", "hand-over", path, "--to", "bob", "--upload-first", "--user", "alice", "--json", env=env)
        assert again.returncode == 0, again.stdout + again.stderr
        outcome = json.loads(again.stdout)
        assert outcome["newUser"] == "bob" and outcome["discarded"] == 0, outcome
        sent = [r for r in proxy.requests[mark:] if r.method == "POST"]
        for key in keys:
            assert sum(key.encode() in r.body for r in sent) == 1, (run, key)
            assert _served(v4, key), (run, key)
        assert {r.authorization for r in proxy.requests[mark:]} == {_basic("alice", "a-secret")}
        status = tool("--store-user", "bob", "status", path, "--json")
        assert status.returncode == 0 and f"kill {run}" not in status.stdout


def test_store_user_forms_and_one_only(tool, tmp_path, recording_proxy):
    """`--store-user=NAME` is the same option; two of them are refused."""
    path = str(tmp_path / "forms.store")
    _alice_store(tool, path, recording_proxy)
    assert tool("--store-user=alice", "status", path).returncode == 0
    twice = tool("--store-user", "alice", "--store-user=bob", "status", path, "--json")
    assert twice.returncode != 0
    assert "give one --store-user, not more" in twice.stdout + twice.stderr
