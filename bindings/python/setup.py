"""Build step of the Python package: puts libofflineodata.so inside the package.

`pip install ./bindings/python` runs this. The library comes from, in order:
1. ``$OFFLINE_ODATA_LIBRARY``, a library already built (``make`` sets it);
2. a release build of the Swift package two folders up (``swift build --product offlineodata``
   with the Swift runtime linked in), in ``$OFFLINE_ODATA_SWIFT_SCRATCH`` or ``.build-release``.
The wheel is platform-specific because it carries that library.
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

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


class BuildWithLibrary(build_py):
    """Copies the native library into the built package."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "offline_odata", LIBRARY_NAME)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(_library_path(), target)
        os.chmod(target, 0o755)


class BinaryDistribution(Distribution):
    """The package carries a native library: its wheel is tagged for this platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
