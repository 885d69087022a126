"""Encrypted stores through the tool (docs/ENCRYPTION.md): --key-file and --passphrase-env on every
command, OOD_KEY's message for a wrong key, store rekey, and kill -9 campaigns with a key: local
writes (at least 50 kills) and rekey (30 kills at named moments, on both sides of the rename, and
more at random moments): nothing lost, nothing applied twice, the store opens with exactly one key."""
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
    info = tool("store", "info", path, "--key-file=" + key_a)
    assert info.returncode == 0 and "raw 256-bit key" in info.stdout, info.stdout
    assert KEY_A not in info.stdout
    described = json.loads(tool("store", "info", path, "--json", "--key-file", key_a).stdout)
    assert described["encryption"]["keyDerivation"] == "raw" and described["encryption"]["iterations"] == 0
    assert described["encryption"]["pageSize"] > 0
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
    described = json.loads(run("store", "info", path, "--json", "--passphrase-env", "TOOL_PASS").stdout)
    assert described["encryption"] == {"keyDerivation": "pbkdf2-hmac-sha256", "iterations": 200000,
                                       "pageSize": described["encryption"]["pageSize"]}
    assert run("store", "rekey", path, "--passphrase-env", "TOOL_PASS", "--decrypt").returncode == 0
    assert run("status", path).returncode == 0
    assert json.loads(run("store", "info", path, "--json").stdout)["encryption"] is None
    assert "none (a plain file)" in run("store", "info", path).stdout
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


#: The moments of a rekey where `OOD_TEST_STOP_AT` stops it (TestStopPoint.swift), and the key the
#: store must open with after a kill there: before the rename the old one, after it the new one.
REKEY_STOP_POINTS = {"rekey-copied": "old key", "rekey-folded": "old key", "rekey-renamed": "new key"}


def _stopped_then_killed(process) -> None:
    """Waits for `process` to stop itself at its stop point (an event: waitpid reports the stop),
    then kills it there with SIGKILL."""
    _, state = os.waitpid(process.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(state), f"the rekey ended (state {state}) without reaching its stop point"
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=60) == -signal.SIGKILL


def test_killed_rekeys_leave_a_store_that_opens_with_exactly_one_key(tool, tmp_path):
    """Kills at each named moment of a rekey (10 each: the copy written and checked; the old file's
    log folded in, just before the rename; just after the rename), so both sides of the rename are
    hit by construction; then kills at random moments, for the moments no point names."""
    path = str(tmp_path / "r.store")
    keys = {"a": _key_file(tmp_path, "a.key", KEY_A), "b": _key_file(tmp_path, "b.key", KEY_B)}
    assert tool("store", "create", path, "--metadata", FLIGHT_V4, "--key-file", keys["a"]).returncode == 0
    for index in range(5):
        body = '{"agencynum":"%08d","name":"Agency %d","city":"Rome"}' % (index, index)
        assert tool("request", path, "--key-file", keys["a"], "--method", "POST", "TravelagencyCollection",
                    "--body", body).returncode == 0
    binary = os.environ["OOD_TOOL"]
    current = "a"

    def rekey(environment=None):
        other = "a" if current == "b" else "b"
        return subprocess.Popen([binary, "store", "rekey", path, "--key-file", keys[current], "--new-key-file", keys[other]],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)

    def opens_with_one_key() -> str:
        opens = [name for name in ("a", "b") if tool("status", path, "--key-file", keys[name]).returncode == 0]
        assert len(opens) == 1, f"after a kill the store opens with {opens}"
        status = tool("status", path, "--json", "--key-file", keys[opens[0]])
        assert _find(json.loads(status.stdout), "queuedRequests") == 5, status.stdout
        return opens[0]

    outcomes = {point: {"old key": 0, "new key": 0} for point in REKEY_STOP_POINTS}
    for round_ in range(10):
        for point, expected in REKEY_STOP_POINTS.items():
            before = current
            _stopped_then_killed(rekey(dict(os.environ, OOD_TEST_STOP_AT=point)))
            current = opens_with_one_key()
            outcomes[point]["old key" if current == before else "new key"] += 1
            assert current == before if expected == "old key" else current != before, (point, round_)
    kills = sum(sum(counts.values()) for counts in outcomes.values())
    assert kills >= 30

    # Random moments, from a measured rekey's span: the copy itself and the moments between points.
    started = time.monotonic()
    assert tool("store", "rekey", path, "--key-file", keys[current], "--new-key-file",
                keys["a" if current == "b" else "b"]).returncode == 0
    duration = time.monotonic() - started
    current = opens_with_one_key()
    rng = random.Random(33)
    timed = 0
    for _ in range(10):
        process = rekey()
        time.sleep(rng.uniform(0.1, 1.0) * duration)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            timed += 1
        process.wait(timeout=60)
        current = opens_with_one_key()
    print(f"rekey: {kills} kills at named points {outcomes}, {timed} of 10 at random moments")
    # Kills landed before the rename (the old key opens) and after it (the new one).
    assert sum(counts["old key"] for counts in outcomes.values()) == 20
    assert sum(counts["new key"] for counts in outcomes.values()) == 10


def _holds_open(pid, path) -> bool:
    """Whether process `pid` has the file at `path` open (its /proc descriptors), or has ended."""
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except FileNotFoundError:
        return True
    for name in names:
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}") == path:
                return True
        except OSError:
            continue
    return False


def test_a_process_that_opens_the_store_during_a_rekey_does_not_write_where_nobody_reads(tool, tmp_path):
    """A second process opens the store with the old key while a rekey holds it alone, stopped
    just before the rename: it waits for the lock, and when the rekey has renamed the copy over
    the store it finds the old file emptied, so its write fails (it never reports a write that
    went into the replaced file). A process that opens the store afterwards with the old key
    gets the key's error; the rekeyed store has exactly the 5 queued requests."""
    path = str(tmp_path / "second.store")
    keys = {"a": _key_file(tmp_path, "a.key", KEY_A), "b": _key_file(tmp_path, "b.key", KEY_B)}
    assert tool("store", "create", path, "--metadata", FLIGHT_V4, "--key-file", keys["a"]).returncode == 0
    for index in range(5):
        body = '{"agencynum":"%08d","name":"Agency %d","city":"Rome"}' % (index, index)
        assert tool("request", path, "--key-file", keys["a"], "--method", "POST", "TravelagencyCollection",
                    "--body", body).returncode == 0
    binary = os.environ["OOD_TOOL"]
    rekey = subprocess.Popen([binary, "store", "rekey", path, "--key-file", keys["a"], "--new-key-file", keys["b"]],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, OOD_TEST_STOP_AT="rekey-folded"))
    _, state = os.waitpid(rekey.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(state)
    body = '{"agencynum":"88000001","name":"Second Process","city":"Rome"}'
    writer = subprocess.Popen([binary, "request", path, "--key-file", keys["a"], "--method", "POST",
                               "TravelagencyCollection", "--body", body],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not _holds_open(writer.pid, path) and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(rekey.pid, signal.SIGCONT)
    _, rekey_error = rekey.communicate(timeout=60)
    assert rekey.returncode == 0, rekey_error
    _, writer_error = writer.communicate(timeout=60)
    assert writer.returncode != 0, "the second process reported a write into the replaced file"
    print(f"second process: {writer_error.strip()}")
    assert tool("status", path, "--key-file", keys["a"]).returncode == 1
    status = tool("status", path, "--json", "--key-file", keys["b"])
    assert _find(json.loads(status.stdout), "queuedRequests") == 5, status.stdout
    late = tool("request", path, "--key-file", keys["a"], "--method", "POST", "TravelagencyCollection", "--body", body)
    assert late.returncode == 1 and "wrong key" in late.stderr, late.stderr


def test_a_rekey_of_a_store_open_elsewhere_fails_busy_and_changes_nothing(tool, tmp_path):
    """A store another process has open (a download waiting on a service that never answers would
    do; here Python's sqlite3 holding a plain store in WAL mode) is not rekeyed: busy, file unchanged."""
    path = str(tmp_path / "open.store")
    assert tool("store", "create", path, "--metadata", FLIGHT_V4).returncode == 0
    key = _key_file(tmp_path, "k.key", KEY_A)
    # Read before the holder opens it: closing any descriptor of the file in the holder's process
    # would drop the holder's POSIX locks (SQLite's locks are per process and file).
    with open(path, "rb") as file:
        before = file.read()
    holder = sqlite3.connect(path)
    try:
        assert holder.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        holder.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        busy = tool("store", "rekey", path, "--new-key-file", key)
        assert busy.returncode == 1 and "open elsewhere" in busy.stderr, busy.stderr
        assert not os.path.exists(path + ".rekeying")
    finally:
        holder.close()
    with open(path, "rb") as file:
        assert file.read() == before
    assert tool("store", "rekey", path, "--new-key-file", key).returncode == 0
    assert tool("status", path, "--key-file", key).returncode == 0
