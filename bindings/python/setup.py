"""Build step of the Python package: puts libofflineodata.so inside the package.

`pip install ./bindings/python` runs this. The library comes from, in order:
1. ``$OFFLINE_ODATA_LIBRARY``, a library already built (``make`` sets it);
2. a release build of the Swift package two folders up (``swift build --product offlineodata``
   with the Swift runtime linked in), in ``$OFFLINE_ODATA_SWIFT_SCRATCH`` or ``.build-release``.
The library is stripped as it is copied. The wheel is tagged ``py3-none-<platform>``: the
binding is ctypes only, so any Python 3 takes it, on the platform of the library it carries.

The build's own folders (``build/``, ``*.egg-info``) go to a temporary folder, removed at exit, so
building in the source tree (``pip install ./bindings/python``, ``make wheel``) leaves nothing in it.
"""
import atexit
import os
import shutil
import subprocess
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


def _library_path():
    prebuilt = os.environ.get("OFFLINE_ODATA_LIBRARY")
    if prebuilt:
        if not os.path.isfile(prebuilt):
            raise RuntimeError(f"OFFLINE_ODATA_LIBRARY names no file: {prebuilt}")
        return prebuilt
    root = _repository_root()
    if root is None:
        raise RuntimeError(
            "cannot find the OfflineOData Swift package (Package.swift) above " + HERE
            + "; set OFFLINE_ODATA_LIBRARY to a built libofflineodata.so")
    if shutil.which("swift") is None:
        raise RuntimeError("building libofflineodata.so needs the Swift toolchain ('swift' on PATH)")
    scratch = os.environ.get("OFFLINE_ODATA_SWIFT_SCRATCH", os.path.join(root, ".build-release"))
    subprocess.check_call(
        ["swift", "build", "-c", "release", "--product", "offlineodata",
         "-Xswiftc", "-static-stdlib", "--scratch-path", scratch],
        cwd=root)
    return os.path.join(scratch, "release", LIBRARY_NAME)


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
