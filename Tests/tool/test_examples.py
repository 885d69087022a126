"""The examples in --help run as printed: each is pasted into a shell (bash), from a folder that
holds what a user would have saved (the sample service's `$metadata` as metadata.xml, its V2
one as metadata-v2.xml), with the sample service's address replaced by the test backend's."""
import shutil
import os
import subprocess
from pathlib import Path

import pytest

from test_shape import example_lines

REPOSITORY = Path(__file__).resolve().parents[2]
SAMPLE_ROOT = "http://127.0.0.1:8000/"


def commands(help_text):
    """The example commands, continuation lines joined as the shell would."""
    joined, current = [], ""
    for line in example_lines(help_text):
        current += line.strip()
        if current.endswith("\\"):
            current = current[:-1] + " "
        else:
            joined.append(current)
            current = ""
    return joined


def run_in_shell(command, folder):
    tool = os.environ["OOD_TOOL"]
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(tool)) + os.pathsep + os.environ["PATH"])
    # The tool on PATH must be the one under test.
    script = f'offline-odata() {{ "{os.path.abspath(tool)}" "$@"; }}\n{command}'
    return subprocess.run(["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def folder(tmp_path):
    sample = REPOSITORY / "Examples" / "FlightSample"
    shutil.copy(sample / "metadata-v4.xml", tmp_path / "metadata.xml")
    shutil.copy(sample / "metadata-v2.xml", tmp_path / "metadata-v2.xml")
    return tmp_path


@pytest.mark.parametrize("command", [["metadata"], ["parse"]], ids=" ".join)
def test_the_examples_that_need_no_service_run(tool, folder, command):
    examples = [c for c in commands(tool(*command, "--help").stdout) if SAMPLE_ROOT not in c and "$metadata'" not in c]
    assert len(examples) >= 2
    for example in examples:
        result = run_in_shell(example, folder)
        assert result.returncode == 0, (example, result.stderr)
        assert result.stdout.strip(), example


def test_the_walk_through_in_the_root_help_runs_against_the_sample_service(tool, folder, v4):
    examples = commands(tool("--help").stdout)
    assert [c.split()[1] for c in examples] == ["store", "download", "request", "status"]
    outputs = []
    for example in examples:
        result = run_in_shell(example.replace(SAMPLE_ROOT, v4.service_root), folder)
        assert result.returncode == 0, (example, result.stderr)
        outputs.append(result.stdout)
    assert "downloaded Agencies:" in outputs[1]
    assert '"value"' in outputs[2]
    assert '"definingRequests"' in outputs[3]
