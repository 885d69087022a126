import os
import sqlite3
import subprocess
import sys

import pytest

import offline_odata
from offline_odata import CannotOpenError, MisuseError, NotAStoreError, Store


def test_open_creates_a_store_in_wal_mode(store_path):
    with Store.open_file(store_path) as store:
        assert store.is_open
        assert store.format_version == 14
        assert store.path == store_path
    assert os.path.exists(store_path)
    connection = sqlite3.connect(store_path)
    try:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert connection.execute(
            "SELECT value FROM ood_store_info WHERE key = 'format_version'").fetchone()[0] == "14"
    finally:
        connection.close()


def test_reopening_keeps_the_store(store_path):
    Store.open_file(store_path).close()
    with Store.open_file(store_path) as again:
        assert again.format_version == 14


def test_accepts_path_like(tmp_path):
    with Store.open_file(tmp_path / "pathlike.store") as store:
        assert store.path.endswith("pathlike.store")


def test_closing_twice_is_harmless(store_path):
    store = Store.open_file(store_path)
    store.close()
    store.close()
    assert not store.is_open


def test_a_closed_store_raises_misuse(store_path):
    store = Store.open_file(store_path)
    store.close()
    with pytest.raises(MisuseError):
        store.format_version


def test_a_path_that_cannot_be_opened(tmp_path):
    with pytest.raises(CannotOpenError) as caught:
        Store.open_file(str(tmp_path / "no-such-folder" / "x.store"))
    assert "cannot open" in caught.value.message
    assert caught.value.status_name == "OOD_CANTOPEN"


def test_a_file_that_is_not_a_store(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a database " * 100)
    with pytest.raises(NotAStoreError) as caught:
        Store.open_file(str(path))
    assert "not an OfflineOData store" in str(caught.value)


def test_an_sqlite_database_of_another_application(tmp_path):
    path = str(tmp_path / "other.db")
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE t (x)")
    connection.close()
    with pytest.raises(NotAStoreError):
        Store.open_file(path)


def test_an_empty_path_is_misuse():
    with pytest.raises(MisuseError):
        Store.open_file("")


def test_a_path_of_the_wrong_type():
    with pytest.raises(TypeError):
        Store.open_file(42)


def test_a_store_left_open_at_exit_does_not_crash(tmp_path):
    script = (
        "import offline_odata, sys\n"
        f"store = offline_odata.Store.open_file({str(tmp_path / 'left-open.store')!r})\n"
        "sys.exit(0)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=os.environ.copy(), timeout=60)
    assert result.returncode == 0
    assert result.stderr == ""


def test_every_exception_is_exported():
    for name in offline_odata.__all__:
        assert hasattr(offline_odata, name)
