"""The wheel (issue 24): tagged py3-none-<platform>, carrying a stripped library, installed into a
fresh venv where no Swift toolchain is on PATH, then imported and used against the V4 service;
building it leaves no build/ or *.egg-info in the source tree.

`make test` builds it first (`make wheel`) and names its folder in OOD_WHEEL_DIR; without that, the
test builds it from OFFLINE_ODATA_LIBRARY."""
import glob
import os
import shutil
import subprocess
import sys
import venv
import zipfile

import pytest

from conftest import REPOSITORY

BINDING = os.path.join(REPOSITORY, "bindings", "python")


def leftovers():
    return sorted(glob.glob(os.path.join(BINDING, "build")) + glob.glob(os.path.join(BINDING, "*.egg-info")))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    folder = os.environ.get("OOD_WHEEL_DIR")
    if not folder:
        folder = str(tmp_path_factory.mktemp("wheels"))
        before = leftovers()
        built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", folder,
                                BINDING], capture_output=True, text=True, timeout=900, env=os.environ.copy())
        assert built.returncode == 0, built.stdout + built.stderr
        assert leftovers() == before  # the in-tree build left nothing behind
    [path] = glob.glob(os.path.join(folder, "offline_odata-*.whl"))
    return path


def test_the_wheel_is_tagged_for_ctypes_and_carries_a_stripped_library(wheel, tmp_path):
    assert os.path.basename(wheel).endswith("-py3-none-linux_x86_64.whl") or "-py3-none-linux_" in wheel
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert "offline_odata/py.typed" in names and "offline_odata/libofflineodata.so" in names
        assert not [name for name in names if "/tests/" in name or name.startswith("tests/")]
        archive.extract("offline_odata/libofflineodata.so", tmp_path)
    sections = subprocess.run(["readelf", "-S", "-W", str(tmp_path / "offline_odata" / "libofflineodata.so")],
                              capture_output=True, text=True, check=True).stdout
    assert ".dynsym" in sections and ".symtab" not in sections and ".debug_info" not in sections


def without_swift(path):
    """PATH without the folders that hold a `swift`."""
    return os.pathsep.join(folder for folder in path.split(os.pathsep)
                           if folder and not os.path.exists(os.path.join(folder, "swift")))


def test_the_wheel_installs_and_works_without_swift(wheel, tmp_path, v4):
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    env = {key: value for key, value in os.environ.items()
           if key not in ("OFFLINE_ODATA_LIBRARY", "OFFLINE_ODATA_SWIFT_SCRATCH", "PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = str(environment / "bin") + os.pathsep + without_swift(env.get("PATH", ""))
    assert shutil.which("swift", path=env["PATH"]) is None
    python = str(environment / "bin" / "python")
    install = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-index", wheel],
                             capture_output=True, text=True, env=env, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    script = (
        "import offline_odata, sys\n"
        "with offline_odata.Store('w.store', service_root=sys.argv[1],\n"
        "                         defining_requests={'A': \"TravelagencyCollection?$filter=country eq 'US'\"}) as s:\n"
        "    agencies = s.entities(\"TravelagencyCollection?$filter=country eq 'US'\")\n"
        "    print(offline_odata.__file__)\n"
        "    print(len(agencies), type(agencies[0]['creditlimit']).__name__, s.count('TravelagencyCollection'))\n"
    )
    run = subprocess.run([python, "-c", script, v4.service_root], capture_output=True, text=True, env=env,
                         cwd=str(tmp_path), timeout=300)
    assert run.returncode == 0, run.stderr
    location, figures = run.stdout.splitlines()
    assert location.startswith(str(environment))
    count, decimal_type, total = figures.split()
    assert int(count) == int(total) > 0 and decimal_type == "Decimal"


def test_pip_takes_an_up_to_date_prebuilt_library_and_says_so(tmp_path):
    """Without OFFLINE_ODATA_LIBRARY, a release build already in the scratch folder that is newer
    than every source is taken as it is (issue 39): no Swift is needed, and the build says which."""
    library = os.environ.get("OFFLINE_ODATA_LIBRARY")
    if not library:
        pytest.skip("needs OFFLINE_ODATA_LIBRARY, a built library to stand for the prebuilt one")
    scratch = tmp_path / "scratch"
    (scratch / "release").mkdir(parents=True)
    shutil.copyfile(library, scratch / "release" / "libofflineodata.so")
    environment = {key: value for key, value in os.environ.items() if key != "OFFLINE_ODATA_LIBRARY"}
    environment.update(OFFLINE_ODATA_SWIFT_SCRATCH=str(scratch), PATH=without_swift(os.environ["PATH"]))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps",
                            "--wheel-dir", str(tmp_path / "wheels"), BINDING],
                           capture_output=True, text=True, timeout=900, env=environment, stdin=subprocess.DEVNULL,
                           start_new_session=True)  # no terminal: the messages go to pip's log
    assert built.returncode == 0, built.stdout + built.stderr
    assert f"using the library already built at {scratch}/release/libofflineodata.so" in built.stdout + built.stderr
    assert glob.glob(str(tmp_path / "wheels" / "offline_odata-*.whl"))
