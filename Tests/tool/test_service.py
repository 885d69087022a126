"""The tool against the real V4 backend: credentials (the password from OFFLINE_ODATA_PASSWORD or a
prompt on the terminal, never an argument; a token from --token or OFFLINE_ODATA_TOKEN), and the
progress bar (drawn on a terminal, never into a pipe)."""
import base64
import json
import os
import pty
import re
import select
import subprocess
import time

FLIGHT_V4 = os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "FlightSample", "metadata-v4.xml")


def environment(**changes):
    """The test's environment without the tool's credential variables, plus `changes`."""
    env = {k: v for k, v in os.environ.items() if k not in ("OFFLINE_ODATA_PASSWORD", "OFFLINE_ODATA_TOKEN")}
    env.update(changes)
    return env


def make_store(tool, tmp_path, service_root):
    path = str(tmp_path / "service.store")
    created = tool("store", "create", path, "--metadata", FLIGHT_V4, "--service", service_root,
                   "--defining", "Agencies=TravelagencyCollection", "--defining", "Carriers=CarrierCollection")
    assert created.returncode == 0, created.stderr
    return path


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_the_password_comes_from_the_environment(tool, tmp_path, v4, recording_proxy):
    root = recording_proxy.root
    path = make_store(tool, tmp_path, root)
    result = tool("request", path, "--mode", "online", "--user", "alice", "CarrierCollection?$top=1",
                  env=environment(OFFLINE_ODATA_PASSWORD="s3cret: with spaces"), stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["value"]) == 1
    assert [r.authorization for r in recording_proxy.requests] == [basic("alice", "s3cret: with spaces")]


def test_download_and_upload_send_the_password_on_every_request(tool, tmp_path, v4, recording_proxy):
    root = recording_proxy.root
    path = make_store(tool, tmp_path, root)
    env = environment(OFFLINE_ODATA_PASSWORD="pw")
    downloaded = tool("download", path, "--user", "bob", "--page-size", "10", env=env, stdin=subprocess.DEVNULL)
    assert downloaded.returncode == 0, downloaded.stderr
    assert "downloaded Agencies: 40 entities in 4 pages" in downloaded.stdout
    created = tool("request", path, "--method", "POST", "TravelagencyCollection",
                   "--body", '{"agencynum":"99000001","name":"Offline Travel","country":"IT"}')
    assert created.returncode == 0, created.stderr
    uploaded = tool("upload", path, "--user", "bob", env=env, stdin=subprocess.DEVNULL)
    assert uploaded.returncode == 0, uploaded.stderr
    assert "1 sent, 0 moved" in uploaded.stdout
    methods = [r.method for r in recording_proxy.requests]
    assert methods.count("GET") >= 5 and "POST" in methods, methods
    assert {r.authorization for r in recording_proxy.requests} == {basic("bob", "pw")}


def test_without_a_password_variable_and_without_a_terminal_the_tool_says_what_to_set(tool, tmp_path, v4, recording_proxy):
    path = make_store(tool, tmp_path, recording_proxy.root)
    for env in (environment(), environment(OFFLINE_ODATA_PASSWORD="")):
        for command in (["download", path], ["upload", path], ["request", path, "--mode", "online", "CarrierCollection"]):
            result = tool(*command, "--user", "alice", env=env, stdin=subprocess.DEVNULL)
            assert result.returncode == 1, (command, result.stdout)
            assert "--user needs a password: set OFFLINE_ODATA_PASSWORD" in result.stderr
            assert "no terminal" in result.stderr
    assert recording_proxy.requests == [], "nothing was sent without the password"


def test_the_password_is_never_a_command_line_argument(tool, tmp_path):
    path = str(tmp_path / "p.store")
    for command in (["download", path], ["upload", path], ["request", path, "--mode", "online", "X"]):
        result = tool(*command, "--user", "alice", "--password", "secret")
        assert result.returncode == 64 and "Unknown option '--password'" in result.stderr


def read_until(fd, marker, seconds=30):
    """What the terminal's main side shows until `marker` appears (or the time is up)."""
    seen = b""
    deadline = time.monotonic() + seconds
    while marker not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_the_password_is_asked_on_the_terminal_with_echo_off(tool, tmp_path, v4, recording_proxy):
    path = make_store(tool, tmp_path, recording_proxy.root)
    main_fd, terminal_fd = pty.openpty()
    # A session of its own: the pseudo-terminal is the only terminal the tool can ask on.
    process = subprocess.Popen([os.environ["OOD_TOOL"], "request", path, "--mode", "online", "--user", "carol",
                                "CarrierCollection?$top=1"], stdin=terminal_fd, stdout=subprocess.PIPE,
                               stderr=terminal_fd, env=environment(), start_new_session=True)
    os.close(terminal_fd)
    try:
        prompt = read_until(main_fd, b"Password for carol: ")
        assert b"Password for carol: " in prompt, prompt
        os.write(main_fd, b"typed secret\n")
        out, _ = process.communicate(timeout=60)
        echoed = read_until(main_fd, b"typed", seconds=1)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(main_fd)
    assert process.returncode == 0
    assert len(json.loads(out)["value"]) == 1
    assert b"typed secret" not in echoed, "the password was echoed"
    assert [r.authorization for r in recording_proxy.requests] == [basic("carol", "typed secret")]


def test_a_token_comes_from_the_option_or_the_environment(tool, tmp_path, v4, recording_proxy):
    path = make_store(tool, tmp_path, recording_proxy.root)
    given = tool("request", path, "--mode", "online", "--token", "abc.def", "CarrierCollection?$top=1", env=environment())
    assert given.returncode == 0, given.stderr
    from_environment = tool("request", path, "--mode", "online", "CarrierCollection?$top=1",
                            env=environment(OFFLINE_ODATA_TOKEN="from-env"))
    assert from_environment.returncode == 0, from_environment.stderr
    assert [r.authorization for r in recording_proxy.requests] == ["Bearer abc.def", "Bearer from-env"]


# The progress bar: drawn on a terminal (standard error if that is one, else standard output),
# never into a pipe. Small pages make a download of several pages, so the bar is redrawn.

def test_no_progress_bar_when_piped(tool, tmp_path, v4):
    path = make_store(tool, tmp_path, v4.service_root)
    result = tool("download", path, "--page-size", "5")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["downloaded Agencies: 40 entities in 8 pages",
                                          "downloaded Carriers: 12 entities in 3 pages"]
    assert result.stderr == ""
    assert "\r" not in result.stdout


def run_on_terminal(command, terminal_stream):
    """Runs the tool with one stream ('stdout' or 'stderr') on a pseudo-terminal and the other piped."""
    main_fd, terminal_fd = pty.openpty()
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, terminal_stream: terminal_fd}
    process = subprocess.Popen([os.environ["OOD_TOOL"], *command], stdin=subprocess.DEVNULL, **streams)
    os.close(terminal_fd)
    shown = b""
    try:
        while True:
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:  # EIO: the tool exited and the terminal closed
                break
            if not chunk:
                break
            shown += chunk
        piped = (process.stdout if terminal_stream == "stderr" else process.stderr).read()
        process.wait(timeout=120)
    finally:
        os.close(main_fd)
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, shown.decode(), piped.decode()


def test_the_progress_bar_is_drawn_on_standard_error_when_it_is_a_terminal(tmp_path, tool, v4):
    path = make_store(tool, tmp_path, v4.service_root)
    status, terminal, piped = run_on_terminal(["download", path, "--page-size", "5"], "stderr")
    assert status == 0
    assert "\rdownloading Agencies" in terminal and "page" in terminal, terminal
    # Standard output, piped, carries only the final lines.
    assert piped.splitlines() == ["downloaded Agencies: 40 entities in 8 pages",
                                  "downloaded Carriers: 12 entities in 3 pages"]


def test_the_progress_bar_is_drawn_on_standard_output_when_only_that_is_a_terminal(tmp_path, tool, v4):
    path = make_store(tool, tmp_path, v4.service_root)
    assert tool("request", path, "--method", "POST", "TravelagencyCollection",
                "--body", '{"agencynum":"99000002","name":"Bar Travel","country":"IT"}').returncode == 0
    status, terminal, piped = run_on_terminal(["upload", path], "stdout")
    assert status == 0, piped
    assert "\ruploading" in terminal and "1/1" in terminal, terminal
    assert "uploaded: 1 sent, 0 moved to the error archive" in terminal
    assert piped == ""


def test_the_progress_bar_shows_bytes_rate_and_the_announced_total(tmp_path, tool, v4):
    path = str(tmp_path / "counted.store")
    created = tool("store", "create", path, "--metadata", FLIGHT_V4, "--service", v4.service_root,
                   "--defining", "Agencies=TravelagencyCollection?$filter=country eq 'US'&$count=true")
    assert created.returncode == 0, created.stderr
    status, terminal, piped = run_on_terminal(["download", path, "--page-size", "2"], "stderr")
    assert status == 0, terminal
    served = int(piped.split()[2])  # "downloaded Agencies: N entities in P pages"
    assert f"/{served} entities" in terminal, terminal  # the total the service announced (@odata.count)
    assert " B, " in terminal or " KB, " in terminal, terminal  # the bytes so far
    assert "entities/s" in terminal, terminal  # the rate
    assert " s left" in terminal, terminal  # an estimate, before the last page


def test_the_upload_progress_bar_shows_bytes_and_rates(tmp_path, tool, v4):
    path = make_store(tool, tmp_path, v4.service_root)
    for number in range(3):
        body = json.dumps({"agencynum": f"9900009{number}", "name": f"Bar Bytes {number}", "country": "IT"})
        assert tool("request", path, "--method", "POST", "TravelagencyCollection", "--body", body).returncode == 0
    status, terminal, piped = run_on_terminal(["upload", path], "stderr")
    assert status == 0, terminal
    assert piped.splitlines() == ["uploaded: 3 sent, 0 moved to the error archive (0 in doubt)"]
    assert "\ruploading [" in terminal and "3/3 requests" in terminal, terminal
    # The bodies sent (the creates) and received (the service's answers), never nothing.
    def amounts(what):
        scale = {"B": 1, "KB": 1024, "MB": 1024 * 1024}
        return [float(n) * scale[unit] for n, unit in re.findall(r" (\d+(?:\.\d)?) (B|KB|MB) " + what, terminal)]
    sent, received = amounts("sent"), amounts("received")
    assert len(sent) == len(received) == 3 and sent == sorted(sent) and received == sorted(received), terminal
    assert sent[0] > 0 and received[0] > 0, terminal
    assert "requests/s" in terminal and re.search(r"\d+(\.\d)? (B|KB|MB)/s", terminal), terminal  # the rates
    assert " s left" in terminal, terminal  # an estimate, before the last request


def test_archive_requeues_a_corrected_create_and_discards_a_refused_one(tool, tmp_path, v4):
    path = make_store(tool, tmp_path, v4.service_root)
    online = tool("request", path, "--mode", "online", "TravelagencyCollection?$top=1&$select=agencynum")
    assert online.returncode == 0, online.stderr
    taken = json.loads(online.stdout)["value"][0]["agencynum"]
    clash = json.dumps({"agencynum": taken, "name": "Clash", "country": "IT"})

    def archive_entries():
        listed = tool("archive", path, "--json")
        assert listed.returncode == 0, listed.stderr
        return json.loads(listed.stdout)["errorArchive"]

    # The store has not downloaded the agency: the create is taken offline, refused by the service.
    assert tool("request", path, "--method", "POST", "TravelagencyCollection", "--body", clash).returncode == 0
    assert "0 sent, 1 moved to the error archive" in tool("upload", path).stdout
    [entry] = archive_entries()
    assert entry["kind"] == "conflict" and entry["method"] == "POST"  # 409: the key is taken
    table = tool("archive", path).stdout
    assert "KIND" in table and "conflict" in table

    refused = tool("archive", path, "--requeue", str(entry["id"]), "--body", '{"nosuch":1}')
    assert refused.returncode == 1 and "nosuch" in refused.stderr
    assert tool("archive", path, "--body", "{}").returncode == 64
    fixed = json.dumps({"agencynum": "99000070", "name": "Fixed", "country": "IT"})
    requeued = tool("archive", path, "--requeue", str(entry["id"]), "--body", fixed)
    assert requeued.returncode == 0, requeued.stderr
    assert requeued.stdout == "requeued 1 request\n"
    assert archive_entries() == []
    assert "1 sent, 0 moved" in tool("upload", path).stdout
    answer = tool("request", path, "--mode", "online", "TravelagencyCollection('99000070')")
    assert json.loads(answer.stdout)["name"] == "Fixed"

    # Discarded, the refused create leaves the store.
    assert tool("request", path, "--method", "POST", "TravelagencyCollection", "--body", clash).returncode == 0
    assert "0 sent, 1 moved to the error archive" in tool("upload", path).stdout
    [entry] = archive_entries()
    discarded = tool("archive", path, "--delete", str(entry["id"]))
    assert discarded.returncode == 0, discarded.stderr
    assert discarded.stdout == "discarded 1 request\n"
    assert archive_entries() == []
    gone = tool("request", path, "--mode", "offline", f"TravelagencyCollection('{taken}')")
    assert gone.returncode != 0
    assert tool("archive", path, "--delete", str(entry["id"])).returncode == 1
