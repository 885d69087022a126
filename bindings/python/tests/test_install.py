"""`pip install ./bindings/python` into a fresh virtual environment gives a working package."""
import os
import subprocess
import sys
import venv

from conftest import REPOSITORY


def test_pip_install_into_a_fresh_venv_then_import_from_anywhere(tmp_path):
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    python = str(environment / "bin" / "python")
    env = {key: value for key, value in os.environ.items()
           if key not in ("OFFLINE_ODATA_LIBRARY", "PYTHONPATH", "VIRTUAL_ENV")}
    # Reuse the repository's release build folder, so the install step builds incrementally.
    env.setdefault("OFFLINE_ODATA_SWIFT_SCRATCH", os.path.join(REPOSITORY, ".build-release"))
    install = subprocess.run([python, "-m", "pip", "install", "--quiet",
                              os.path.join(REPOSITORY, "bindings", "python")],
                             capture_output=True, text=True, env=env, timeout=900)
    assert install.returncode == 0, install.stdout + install.stderr

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run([python, "-c", "import offline_odata; print(offline_odata.version())"],
                            capture_output=True, text=True, env=env, cwd=str(elsewhere), timeout=60)
    assert result.returncode == 0, result.stderr
    with open(os.path.join(REPOSITORY, "include", "offline_odata.h"), encoding="utf-8") as f:
        assert f'#define OOD_VERSION "{result.stdout.strip()}"' in f.read()

    location = subprocess.run([python, "-c", "import offline_odata, os; print(os.path.dirname(offline_odata.__file__))"],
                              capture_output=True, text=True, env=env, cwd=str(elsewhere), timeout=60)
    assert os.path.exists(os.path.join(location.stdout.strip(), "libofflineodata.so"))
