"""`make demo`'s driver (Examples/FlightSample/demo.py) against the built tool ($OOD_TOOL) and the
real V4 backend: it runs to the end twice on the same store path, leaves a store that holds what the
scenario did, and fails with exit status 1 and a message naming the step when the tool misbehaves."""
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
DEMO = REPOSITORY / "Examples" / "FlightSample" / "demo.py"
STEPS = 7


@pytest.fixture
def tool_path():
    path = os.environ.get("OOD_TOOL")
    if not path:
        pytest.fail("OOD_TOOL is not set: run these tests through `make test` (or set it to the built tool)")
    return str(Path(path).resolve())


def run_demo(tool: str, store: Path, cwd: Path) -> subprocess.CompletedProcess:
    environment = dict(os.environ, OOD_TOOL=tool, OOD_DEMO_STORE=str(store))
    return subprocess.run([sys.executable, str(DEMO)], capture_output=True, text=True, timeout=300,
                          env=environment, cwd=cwd, stdin=subprocess.DEVNULL)


def test_the_demo_runs_every_step_twice_and_leaves_the_store(tool_path, tmp_path):
    store = tmp_path / "demo" / "travel.store"
    for attempt in (1, 2):  # the second run starts again from a fresh store at the same path
        result = run_demo(tool_path, store, tmp_path)
        assert result.returncode == 0, f"run {attempt}:\n{result.stdout}\n{result.stderr}"
        for number in range(1, STEPS + 1):
            assert f"== Step {number} of {STEPS}: " in result.stdout, f"run {attempt}: step {number} missing"
        assert result.stdout.count("\n  OK: ") == STEPS, result.stdout
        assert "FAILED" not in result.stdout + result.stderr
        assert f"All {STEPS} steps gave the expected result." in result.stdout
        assert "The sample service is stopped." in result.stdout
        assert "demo/travel.store" in result.stdout.splitlines()[-3]  # the path, relative to where it ran

    # The store left behind holds what the scenario did: an empty queue, both defining requests
    # downloaded, and the agency created offline, now carrying the service's change stamp.
    status = subprocess.run([tool_path, "status", str(store), "--json"], capture_output=True, text=True, timeout=60)
    assert status.returncode == 0, status.stderr
    state = json.loads(status.stdout)
    assert state["queue"] == [] and state["errorArchive"] == []
    assert sorted(d["name"] for d in state["definingRequests"] if d["lastDownload"]) == ["Agencies", "Flights"]
    read = subprocess.run([tool_path, "request", str(store), "TravelagencyCollection?$filter=name eq 'Demo Travel (offline)'"],
                          capture_output=True, text=True, timeout=60)
    assert read.returncode == 0, read.stderr
    created = json.loads(read.stdout)["value"]
    assert len(created) == 1 and created[0]["ChangedAt"] is not None, created


def write_script(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_a_step_whose_result_is_wrong_fails_the_demo_with_exit_1(tool_path, tmp_path):
    # A tool whose download claims success but fetches nothing: step 2's check must catch it.
    lazy = write_script(tmp_path / "lazy-tool", f"""#!/bin/sh
if [ "$1" = download ]; then echo "downloaded everything"; exit 0; fi
exec '{tool_path}' "$@"
""")
    result = run_demo(lazy, tmp_path / "travel.store", tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAILED: step 2 of 7 (download the defining requests)" in result.stderr
    assert "expected every defining request downloaded" in result.stderr
    assert "== Step 3 of" not in result.stdout
    assert "The sample service is stopped." in result.stdout


def test_a_failing_tool_command_fails_the_demo_with_its_message(tmp_path):
    broken = write_script(tmp_path / "broken-tool", "#!/bin/sh\necho 'error: disk on fire' >&2\nexit 1\n")
    result = run_demo(broken, tmp_path / "travel.store", tmp_path)
    assert result.returncode == 1
    assert "FAILED: step 1 of 7" in result.stderr and "disk on fire" in result.stderr


def test_a_missing_tool_is_named_before_the_service_starts(tmp_path):
    result = run_demo(str(tmp_path / "no-such-tool"), tmp_path / "travel.store", tmp_path)
    assert result.returncode == 1
    assert "no offline-odata tool at" in result.stderr and "make cmake-build" in result.stderr
    assert "Starting the flight sample service" not in result.stdout
