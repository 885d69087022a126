"""The README's one install command in a fresh virtual environment, then its quickstart verbatim
(issue 9, acceptance 2)."""
import os
import re
import subprocess
import venv

import pytest

from conftest import REPOSITORY, backends

README = os.path.join(REPOSITORY, "bindings", "python", "README.md")


def readme_blocks(section: str, language: str):
    """The fenced code blocks of one language in one ``## section`` of the README, verbatim."""
    with open(README, encoding="utf-8") as f:
        text = f.read()
    body = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(section), text, re.S | re.M).group(1)
    return re.findall(r"^```%s\n(.*?)^```" % language, body, re.S | re.M)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv after the README's first install command, run from the repository root."""
    folder = tmp_path_factory.mktemp("install")
    environment = folder / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    env = {key: value for key, value in os.environ.items()
           if key not in ("OFFLINE_ODATA_LIBRARY", "PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = str(environment / "bin") + os.pathsep + env.get("PATH", "")
    # Reuse the repository's release build folder, so the install step builds incrementally.
    env.setdefault("OFFLINE_ODATA_SWIFT_SCRATCH", os.path.join(REPOSITORY, ".build-release"))
    command = readme_blocks("Install", "sh")[0].strip()
    assert command == "pip install ./bindings/python"
    install = subprocess.run(command, shell=True, cwd=REPOSITORY, capture_output=True, text=True, env=env,
                             timeout=900)
    assert install.returncode == 0, install.stdout + install.stderr
    return str(environment / "bin" / "python"), env, folder


def test_pip_install_into_a_fresh_venv_then_import_from_anywhere(installed):
    python, env, folder = installed
    elsewhere = folder / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run([python, "-c", "import offline_odata; print(offline_odata.version())"],
                            capture_output=True, text=True, env=env, cwd=str(elsewhere), timeout=60)
    assert result.returncode == 0, result.stderr
    with open(os.path.join(REPOSITORY, "include", "offline_odata.h"), encoding="utf-8") as f:
        assert f'#define OOD_VERSION "{result.stdout.strip()}"' in f.read()

    location = subprocess.run([python, "-c", "import offline_odata, os; print(os.path.dirname(offline_odata.__file__))"],
                              capture_output=True, text=True, env=env, cwd=str(elsewhere), timeout=60)
    package = location.stdout.strip()
    assert package.startswith(str(folder)) and os.path.exists(os.path.join(package, "libofflineodata.so"))
    assert os.path.exists(os.path.join(package, "py.typed"))


def test_the_readme_quickstart_runs_as_written(installed):
    python, env, folder = installed
    blocks = readme_blocks("Quickstart", "python")
    assert len(blocks) == 1
    work = folder / "quickstart"
    work.mkdir()
    (work / "quickstart.py").write_text(blocks[0], encoding="utf-8")
    with backends.start_v4() as service:
        result = subprocess.run([python, "quickstart.py"], capture_output=True, text=True, cwd=str(work),
                                env=dict(env, OOD_SERVICE=service.service_root), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert re.match(r"\d+ US agencies, the first: \S", lines[0])
    assert lines[1] == "queued: ['POST']"
    assert lines[2] == "uploaded: 1 sent, 0 refused"
    assert any(line.startswith("  downloaded ") for line in lines)
    assert lines[-1] == "Example Travel"
    assert (work / "travel.store").exists()
