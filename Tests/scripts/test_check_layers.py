"""scripts/check_layers.py: the real tree passes; a synthetic tree with an upward use fails."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
SCRIPT = REPOSITORY / "scripts" / "check_layers.py"


def run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, check=False)


def make_tree(root: Path, files: dict[str, str], layers: str = "Low\nHigh\n") -> list[str]:
    """A sources folder with `files` (path → Swift text) and a layers file; the script's arguments."""
    sources = root / "Sources"
    for relative, text in files.items():
        path = sources / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    layers_file = root / "layers.txt"
    layers_file.write_text(layers, encoding="utf-8")
    return ["--sources", str(sources), "--layers", str(layers_file)]


HIGH = {"High/Highly.swift": "struct Highly {\n    static let answer = 42\n}\nfunc highHelper() -> Int { 1 }\n"}


def test_the_real_tree_passes():
    result = run()
    assert result.returncode == 0, result.stderr
    assert "no upward use" in result.stdout


def test_a_type_of_a_higher_layer_fails_with_file_line_and_name(tmp_path):
    arguments = make_tree(tmp_path, {**HIGH, "Low/Sub/Lowly.swift": "struct Lowly {\n    var high: Highly\n}\n"})
    result = run(*arguments)
    assert result.returncode == 1
    assert "Low/Sub/Lowly.swift:2: Low uses Highly, declared in High/Highly.swift" in result.stderr


def test_an_extension_of_a_type_of_a_higher_layer_fails(tmp_path):
    arguments = make_tree(tmp_path, {**HIGH, "Low/Lowly.swift": "protocol Lowly {}\nextension Highly: Lowly {}\n"})
    result = run(*arguments)
    assert result.returncode == 1
    assert "Low/Lowly.swift:2: Low uses Highly" in result.stderr


def test_an_argument_label_or_parameter_of_a_functions_name_is_not_a_use(tmp_path):
    lowly = "func lowly(highHelper value: Int) -> Int { value }\nfunc other(highHelper: Int) -> Int { lowly(highHelper: highHelper) }\n"
    arguments = make_tree(tmp_path, {**HIGH, "Low/Lowly.swift": lowly})
    result = run(*arguments)
    assert result.returncode == 0, result.stderr


def test_a_free_function_of_a_higher_layer_fails(tmp_path):
    arguments = make_tree(tmp_path, {**HIGH, "Low/Lowly.swift": "func lowly() -> Int { highHelper() }\n"})
    result = run(*arguments)
    assert result.returncode == 1
    assert "Low uses highHelper" in result.stderr


def test_a_lower_layer_and_the_own_layer_may_be_used(tmp_path):
    arguments = make_tree(tmp_path, {
        "Low/Lowly.swift": "struct Lowly {}\n",
        "Low/Other.swift": "extension Lowly { var other: Lowly { self } }\n",
        "High/Highly.swift": "struct Highly { var low: Lowly }\n",
    })
    result = run(*arguments)
    assert result.returncode == 0, result.stderr


def test_comments_strings_and_members_do_not_count_but_interpolations_do(tmp_path):
    quiet = ('// Highly in a comment\n/* and /* nested */ Highly */\n'
             'let a = "Highly"\nlet b = #"Highly "quoted""#\nlet c = """\n    Highly\n    """\n'
             'let d = something.Highly\n')
    arguments = make_tree(tmp_path, {**HIGH, "Low/Quiet.swift": quiet})
    assert run(*arguments).returncode == 0
    arguments = make_tree(tmp_path, {"Low/Quiet.swift": quiet + 'let e = "\\(Highly.answer)"\n'})
    result = run(*arguments)
    assert result.returncode == 1
    assert "Quiet.swift:9: Low uses Highly" in result.stderr


def test_an_allow_line_permits_one_use_and_a_stale_one_fails(tmp_path):
    files = {**HIGH, "Low/Lowly.swift": "struct Lowly { var high: Highly }\n"}
    allowed = "Low\nHigh\nallow Low/Lowly.swift uses Highly: a test of the exception list\n"
    assert run(*make_tree(tmp_path, files, allowed)).returncode == 0
    files["Low/Lowly.swift"] = "struct Lowly {}\n"
    result = run(*make_tree(tmp_path, files, allowed))
    assert result.returncode == 1
    assert "matches no use any more" in result.stderr


def test_a_folder_the_layers_do_not_place_is_an_error(tmp_path):
    arguments = make_tree(tmp_path, {**HIGH, "Elsewhere/Stray.swift": "struct Stray {}\n"})
    result = run(*arguments)
    assert result.returncode == 2
    assert "Elsewhere/Stray.swift" in result.stderr


def test_a_malformed_layers_file_is_an_error(tmp_path):
    result = run(*make_tree(tmp_path, HIGH, "Low\nHigh things\n"))
    assert result.returncode == 2
    assert "expected one folder name" in result.stderr


def test_the_architecture_document_quotes_the_layers_in_the_checks_order():
    sys.path.insert(0, str(SCRIPT.parent))
    from check_layers import read_layers

    layers, _ = read_layers(REPOSITORY / "docs" / "layers.txt")
    document = (REPOSITORY / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    quoted = document.split("```\n", 2)[1].split()
    assert quoted == layers
    table_rows = [line.split("`")[1] for line in document.splitlines() if line.startswith("| `")]
    assert table_rows[:len(layers)] == layers
