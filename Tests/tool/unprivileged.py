"""Runs a command as a user whom file modes bind: the tests of write-protected stores need one,
and root is not bound by them (a 0400 file is writable for root)."""
from __future__ import annotations

import os
import shutil
import tempfile

import pytest

#: The user and group `nobody`/`nogroup` on Debian.
NOBODY = 65534


def unprivileged(argv: list[str]) -> list[str]:
    """`argv`, run as `nobody` when this process is root (through setpriv), else as it is."""
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot drop to a user bound by file modes")
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]


def shared_folder() -> str:
    """A new folder the unprivileged user can read (pytest's tmp_path is root's alone)."""
    folder = tempfile.mkdtemp(prefix="ood-readonly-")
    os.chmod(folder, 0o755)
    return folder


def protect(path: str, folder_too: bool) -> None:
    """Makes the store at `path` write-protected (and its folder, with `folder_too`)."""
    os.chmod(path, 0o444)
    if folder_too:
        os.chmod(os.path.dirname(path), 0o555)


def release(folder: str) -> None:
    """Gives the folder back to its owner and removes it."""
    os.chmod(folder, 0o755)
    shutil.rmtree(folder, ignore_errors=True)
