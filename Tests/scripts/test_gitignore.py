"""The files a store leaves beside itself in a working folder are ignored by git (issue 39): the
store and SQLite's sidecars, and the engine's own, `-writer` (who writes it) and `-upload.lock`
(kept on purpose: removing a lock file another process may hold is unsafe)."""
import subprocess
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["travel.store", "travel.store-wal", "travel.store-shm", "travel.store-writer",
                                  "travel.store-upload.lock", "quickstart-c.store-writer"])
def test_a_stores_files_are_ignored(name):
    if not (REPOSITORY / ".git").exists():
        pytest.skip("not a git checkout")
    ignored = subprocess.run(["git", "check-ignore", "-q", name], cwd=REPOSITORY)
    assert ignored.returncode == 0, f"{name} is not ignored by .gitignore"
