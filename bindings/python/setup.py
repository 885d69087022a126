"""Build step of the Python package: puts libofflineodata.so inside the package.

`pip install ./bindings/python` runs this. The library comes from, in order:
1. ``$OFFLINE_ODATA_LIBRARY``, a library already built (``make`` sets it);
2. the release build already in ``$OFFLINE_ODATA_SWIFT_SCRATCH`` or ``.build-release`` (``make``
   or ``make install`` made it), when it is newer than every source of the Swift package;
3. a release build of the Swift package two folders up (``swift build --product offlineodata``
   with the Swift runtime linked in) into that folder: minutes on a fresh clone.
pip shows nothing of a build step unless run with ``-v``, so what this step does (which library
it takes, and the Swift build's progress) goes to the terminal itself when there is one.
The library is stripped as it is copied. The wheel is tagged ``py3-none-<platform>``: the
binding is ctypes only, so any Python 3 takes it, on the platform of the library it carries.

The build's own folders (``build/``, ``*.egg-info``) go to a temporary folder, removed at exit, so
building in the source tree (``pip install ./bindings/python``, ``make wheel``) leaves nothing in it.
"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools before 70.1 has it from the wheel package
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY_NAME = "libofflineodata.so"


def _repository_root():
    folder = HERE
    while True:
        if os.path.exists(os.path.join(folder, "Package.swift")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _say(message):
    """Tells the user what the build does: on the terminal when there is one (pip captures the
    build's output and shows it only with -v), else on standard error (pip's log)."""
    try:
        with open("/dev/tty", "w") as terminal:
            terminal.write(f"offline-odata: {message}\n")
            return
    except OSError:
        pass
    print(f"offline-odata: {message}", file=sys.stderr, flush=True)


def _newest_source(root):
    """The newest modification time of the Swift package's sources (and its manifest)."""
    newest = os.path.getmtime(os.path.join(root, "Package.swift"))
    for folder in ("Sources", "include"):
        for parent, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                newest = max(newest, os.path.getmtime(os.path.join(parent, name)))
    return newest


def _library_path():
    prebuilt = os.environ.get("OFFLINE_ODATA_LIBRARY")
    if prebuilt:
        if not os.path.isfile(prebuilt):
            raise RuntimeError(f"OFFLINE_ODATA_LIBRARY names no file: {prebuilt}")
        _say(f"using the library OFFLINE_ODATA_LIBRARY names: {prebuilt}")
        return prebuilt
    root = _repository_root()
    if root is None:
        raise RuntimeError(
            "cannot find the OfflineOData Swift package (Package.swift) above " + HERE
            + "; set OFFLINE_ODATA_LIBRARY to a built libofflineodata.so")
    scratch = os.environ.get("OFFLINE_ODATA_SWIFT_SCRATCH", os.path.join(root, ".build-release"))
    built = os.path.join(scratch, "release", LIBRARY_NAME)
    if os.path.isfile(built) and os.path.getmtime(built) >= _newest_source(root):
        _say(f"using the library already built at {built} (newer than every source)")
        return built
    if shutil.which("swift") is None:
        raise RuntimeError("building libofflineodata.so needs the Swift toolchain ('swift' on PATH); "
                           "or install the Swift-free wheel (make wheel, or the release's wheel)")
    _say(f"building libofflineodata.so with swift build (release) into {scratch}: "
         "a few minutes on a fresh clone, a line at least every 10 s")
    command = ["swift", "build", "-c", "release", "--product", "offlineodata",
               "-Xswiftc", "-static-stdlib", "--scratch-path", scratch]
    heartbeat = os.path.join(root, "scripts", "heartbeat.sh")
    if os.path.isfile(heartbeat):
        command = [heartbeat, "swift build (library)"] + command
    try:
        terminal = open("/dev/tty", "w")
    except OSError:
        terminal = None
    try:
        subprocess.check_call(command, cwd=root, stdout=terminal or sys.stderr, stderr=subprocess.STDOUT)
    finally:
        if terminal is not None:
            terminal.close()
    _say(f"built {built}")
    return built


def _strip(path):
    """Removes the symbol table and debug sections; the exported functions stay."""
    tool = shutil.which("strip")
    if tool is None:
        raise RuntimeError("stripping libofflineodata.so needs 'strip' (binutils) on PATH")
    subprocess.check_call([tool, "--strip-unneeded", path])


class BuildWithLibrary(build_py):
    """Copies the native library, stripped, into the built package."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "offline_odata", LIBRARY_NAME)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(_library_path(), target)
        os.chmod(target, 0o755)
        _strip(target)


class CtypesWheel(bdist_wheel):
    """Tags the wheel ``py3-none-<platform>``: no Python ABI, a native library of this platform."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


class BinaryDistribution(Distribution):
    """The package carries a native library: its wheel is tagged for this platform."""

    def has_ext_modules(self):
        return True


_SCRATCH = tempfile.mkdtemp(prefix="offline-odata-setup-")
atexit.register(shutil.rmtree, _SCRATCH, True)

setup(cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": CtypesWheel}, distclass=BinaryDistribution,
      options={"build": {"build_base": os.path.join(_SCRATCH, "build")},
               "egg_info": {"egg_base": _SCRATCH}})
