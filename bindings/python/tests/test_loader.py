import os
import subprocess
import sys

from offline_odata import _loader


def run_import(env):
    return subprocess.run([sys.executable, "-c", "import offline_odata; print(offline_odata.version())"],
                          capture_output=True, text=True, env=env, timeout=60)


def test_the_environment_override_comes_first(monkeypatch):
    monkeypatch.setenv(_loader.ENVIRONMENT_VARIABLE, "/somewhere/libofflineodata.so")
    assert _loader.library_candidates()[0] == "/somewhere/libofflineodata.so"


def test_an_override_naming_no_file_is_a_clear_import_error():
    env = dict(os.environ, OFFLINE_ODATA_LIBRARY="/nonexistent/libofflineodata.so")
    result = run_import(env)
    assert result.returncode != 0
    assert "OFFLINE_ODATA_LIBRARY names no file" in result.stderr
