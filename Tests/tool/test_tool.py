"""The command-line tool: every subcommand, its help, its success and its errors."""
import re
import sqlite3


def header_version():
    import os
    header = os.path.join(os.path.dirname(__file__), "..", "..", "include", "offline_odata.h")
    with open(header, encoding="utf-8") as f:
        return re.search(r'#define OOD_VERSION "([^"]+)"', f.read()).group(1)


def test_version(tool):
    result = tool("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == header_version()


def test_help_names_the_exit_codes(tool):
    result = tool("--help")
    assert result.returncode == 0
    assert "Exit codes" in result.stdout
    assert "store" in result.stdout


def test_store_create_help_has_an_example(tool):
    result = tool("store", "create", "--help")
    assert result.returncode == 0
    assert "Example" in result.stdout and "offline-odata store create" in result.stdout


def test_store_create_makes_a_store(tool, tmp_path):
    path = str(tmp_path / "new.store")
    result = tool("store", "create", path)
    assert result.returncode == 0, result.stderr
    assert "created" in result.stdout and "format version 2" in result.stdout and "wal" in result.stdout
    connection = sqlite3.connect(path)
    assert connection.execute("SELECT value FROM ood_store_info WHERE key='format_version'").fetchone()[0] == "2"
    connection.close()


def test_store_create_twice_says_it_is_already_a_store(tool, tmp_path):
    path = str(tmp_path / "again.store")
    assert tool("store", "create", path).returncode == 0
    result = tool("store", "create", path)
    assert result.returncode == 0
    assert "already a store" in result.stdout


def test_store_create_in_a_missing_folder_fails_with_the_message(tool, tmp_path):
    result = tool("store", "create", str(tmp_path / "missing" / "x.store"))
    assert result.returncode == 1
    assert "cannot open" in result.stderr


def test_store_create_on_a_file_that_is_not_a_store(tool, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("plain text " * 200)
    result = tool("store", "create", str(path))
    assert result.returncode == 1
    assert "not an OfflineOData store" in result.stderr
    assert path.read_text() == "plain text " * 200


def test_store_create_without_a_path_is_a_usage_error(tool):
    result = tool("store", "create")
    assert result.returncode == 64
    assert "Missing expected argument" in result.stderr
