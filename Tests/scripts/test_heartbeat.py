"""scripts/heartbeat.sh (issue 39), which wraps the long `swift build` steps of the CMake build: it
passes the command's lines through, keeps its exit code, and says the linker's mktemp warning
(from the static Swift Foundation the tool links) once, plainly. Its silence timer is measured
by `make demo` on a fresh clone (scripts/silences.py), not here: no test waits for time."""
import subprocess
from pathlib import Path

HEARTBEAT = Path(__file__).resolve().parents[2] / "scripts" / "heartbeat.sh"
WARNING = ("libFoundationEssentials.a(Data+Writing.swift.o):function createTemporaryFile: "
           "warning: the use of `mktemp' is dangerous, better use `mkstemp' or `mkdtemp'")


def run(script):
    return subprocess.run([str(HEARTBEAT), "step", "bash", "-c", script], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "WARNING": WARNING})


def test_the_lines_pass_through_and_the_exit_code_is_kept():
    result = run("echo one; echo two >&2; exit 7")
    assert result.returncode == 7
    lines = result.stdout.splitlines()
    assert lines[0].startswith("step: started") and lines[1:3] == ["one", "two"]
    assert lines[-1].startswith("step: finished in ") and lines[-1].endswith("(exit 7)")


def test_the_mktemp_warning_is_said_once_plainly():
    result = run('printf "%s\\n" "$WARNING" "$WARNING"; echo linked')
    assert result.returncode == 0
    assert "dangerous" not in result.stdout
    assert result.stdout.count("uses mktemp; the tool never calls that function: harmless") == 1
    assert "linked" in result.stdout
