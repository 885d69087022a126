"""Encrypted stores through the tool (docs/ENCRYPTION.md): --key-file and --passphrase-env on every
command, OOD_KEY's message for a wrong key, store rekey, and kill -9 campaigns with a key: local
writes (at least 50 kills) and rekey (at least 30): nothing lost, nothing applied twice, the store
opens with exactly one key."""
import importlib.util
import json
import os
import random
import signal
import sqlite3
import subprocess
import time

REPOSITORY = os.path.join(os.path.dirname(__file__), "..", "..")
FLIGHT_V4 = os.path.join(REPOSITORY, "Examples", "FlightSample", "metadata-v4.xml")
KEY_A = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
KEY_B = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"


def _reader():
    path = os.path.join(REPOSITORY, "Tests", "encryption", "independent_reader.py")
    spec = importlib.util.spec_from_file_location("independent_reader", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _find(value, name):
    """The first value of `name` anywhere in a JSON value."""
    if isinstance(value, dict):
        if name in value:
            return value[name]
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            found = _find(item, name)
            if found is not None:
                return found
    return None


def _key_file(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text + "\n")
    return str(path)


def test_every_command_takes_the_key_and_a_wrong_key_says_so(tool, tmp_path):
    path = str(tmp_path / "enc.store")
    key_a = _key_file(tmp_path, "a.key", KEY_A)
    key_b = _key_file(tmp_path, "b.key", KEY_B)
    assert tool("store", "create", path, "--metadata", FLIGHT_V4, "--key-file", key_a).returncode == 0
    body = '{"agencynum":"77000001","name":"MARKER-tool-e1","city":"Rome"}'
    assert tool("--key-file", key_a, "request", path, "--method", "POST", "TravelagencyCollection", "--body", body).returncode == 0
    with open(path, "rb") as f:
        assert b"MARKER-tool-e1" not in f.read()
    assert tool("status", path, "--json", "--key-file", key_a).returncode == 0
    assert tool("store", "check", path, "--key-file", key_a).returncode == 0
    assert tool("store", "info", path, "--key-file=" + key_a).returncode == 0
    wrong = tool("status", path, "--key-file", key_b)
    assert wrong.returncode == 1 and "wrong key" in wrong.stderr, wrong.stderr
    assert KEY_B not in wrong.stderr and KEY_A not in wrong.stderr
    missing = tool("status", path)
    assert missing.returncode == 1 and "encrypted" in missing.stderr
    unreadable = tool("status", path, "--key-file", str(tmp_path / "nothing.key"))
    assert unreadable.returncode == 64


def test_store_rekey_with_a_passphrase_from_the_environment(tool, tmp_path):
    path = str(tmp_path / "p.store")
    assert tool("store", "create", path, "--metadata", FLIGHT_V4).returncode == 0
    env = dict(os.environ, TOOL_PASS="tool words")
    run = lambda *args: subprocess.run([os.environ["OOD_TOOL"], *args], capture_output=True, text=True, env=env)
    assert run("store", "rekey", path, "--new-passphrase-env", "TOOL_PASS").returncode == 0
    assert run("status", path).returncode == 1
    assert run("status", path, "--passphrase-env", "TOOL_PASS").returncode == 0
    assert run("store", "rekey", path, "--passphrase-env", "TOOL_PASS", "--decrypt").returncode == 0
    assert run("status", path).returncode == 0
    assert run("store", "rekey", path, "--decrypt", "--new-passphrase-env", "TOOL_PASS").returncode == 64


def test_killed_writes_with_a_key_leave_tables_and_queue_consistent(tool, tmp_path):
    path = str(tmp_path / "crash.store")
    key = _key_file(tmp_path, "k.key", KEY_A)
    assert tool("store", "create", path, "--metadata", FLIGHT_V4, "--key-file", key).returncode == 0
    binary = os.environ["OOD_TOOL"]
    started = time.monotonic()
    assert tool("request", path, "--key-file", key, "--method", "POST", "TravelagencyCollection", "--body",
                '{"agencynum":"timing","name":"Timing"}').returncode == 0
    duration = time.monotonic() - started
    rng = random.Random(20261128)
    killed = 0
    index = 0
    while killed < 50 and index < 400:
        body = '{"agencynum":"%08d","name":"Agency %d","city":"Rome"}' % (index, index)
        process = subprocess.Popen([binary, "request", path, "--key-file", key, "--method", "POST",
                                    "TravelagencyCollection", "--body", body],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.2, 1.3) * duration)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed += 1
        process.wait(timeout=30)
        index += 1
    assert killed >= 50, f"only {killed} kills landed mid-way"
    print(f"writes: {index} attempts, {killed} killed mid-way")
    result = tool("status", path, "--json", "--key-file", key)
    assert result.returncode == 0, result.stderr
    # Read back with the independent reader (the tool's open folded the WAL in).
    plain = str(tmp_path / "plain.db")
    _reader().decrypt_store(path, plain, raw_key=bytes.fromhex(KEY_A))
    connection = sqlite3.connect(plain)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        created = {row[0] for row in connection.execute(
            'SELECT "_ood_id" FROM "es/TravelagencyCollection" WHERE "_ood_change" = \'created\'')}
        queued = [row[0] for row in connection.execute(
            "SELECT entity_id FROM ood_request_queue WHERE method = 'POST' ORDER BY id")]
    finally:
        connection.close()
    assert sorted(queued) == sorted(created)
    assert len(created) > 1


def test_killed_rekeys_leave_a_store_that_opens_with_exactly_one_key(tool, tmp_path):
    path = str(tmp_path / "r.store")
    keys = {"a": _key_file(tmp_path, "a.key", KEY_A), "b": _key_file(tmp_path, "b.key", KEY_B)}
    assert tool("store", "create", path, "--metadata", FLIGHT_V4, "--key-file", keys["a"]).returncode == 0
    for index in range(5):
        body = '{"agencynum":"%08d","name":"Agency %d","city":"Rome"}' % (index, index)
        assert tool("request", path, "--key-file", keys["a"], "--method", "POST", "TravelagencyCollection",
                    "--body", body).returncode == 0
    binary = os.environ["OOD_TOOL"]
    current = "a"
    started = time.monotonic()
    assert tool("store", "rekey", path, "--key-file", keys["a"], "--new-key-file", keys["b"]).returncode == 0
    duration = time.monotonic() - started
    current = "b"
    rng = random.Random(33)
    killed = 0
    attempts = 0
    outcomes = {"old key": 0, "new key": 0}
    while killed < 30 and attempts < 300:
        attempts += 1
        other = "a" if current == "b" else "b"
        process = subprocess.Popen([binary, "store", "rekey", path, "--key-file", keys[current], "--new-key-file", keys[other]],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.1, 1.2) * duration)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed += 1
        was_killed = process.wait(timeout=60) == -signal.SIGKILL
        opens = [name for name in ("a", "b") if tool("status", path, "--key-file", keys[name]).returncode == 0]
        assert len(opens) == 1, f"after attempt {attempts} the store opens with {opens}"
        if was_killed:
            outcomes["old key" if opens[0] == current else "new key"] += 1
        current = opens[0]
        status = tool("status", path, "--json", "--key-file", keys[current])
        assert _find(json.loads(status.stdout), "queuedRequests") == 5, status.stdout
    assert killed >= 30, f"only {killed} kills landed mid-way"
    print(f"rekey: {attempts} attempts, {killed} killed mid-way: {outcomes}")
    # Kills landed before the rename (the old key opens) and after it (the new one).
    assert outcomes["old key"] > 0 and outcomes["new key"] > 0, outcomes
