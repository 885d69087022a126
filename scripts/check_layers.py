#!/usr/bin/env python3
"""Fails when a file of the engine uses a type declared in a higher layer.

The layers are the top-level folders of Sources/OfflineOData, in the order docs/layers.txt gives
(lowest first). A name belongs to the folder of the file that declares it at the top level: a
type (struct, class, enum, protocol, typealias, actor; an extension declares nothing), and also a
free function or a global constant that is not private. A file uses a type when the type's name
appears in its code as an identifier not reached through `.`, a function when it is called so,
after comments and string literals are removed (interpolations stay: they are code). Members of
extensions are not declarations here, so a call into an extension declared higher up is not seen.

    scripts/check_layers.py             check the tree; exit 1 on an upward use
    scripts/check_layers.py --matrix    also print which folder uses which, with the type names
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
DECLARATION = re.compile(r"\b(?:struct|class|enum|protocol|typealias|actor)\s+([A-Za-z_][A-Za-z0-9_]*)")
# A free function or global constant, with the modifiers before it (private ones stay in their file).
GLOBAL = re.compile(r"^([ \t]*(?:@\w+[ \t]+)*(?:\w+[ \t]+)*?)(?:func|let|var)[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.M)
# `class func`, `class var`: `class` as a modifier, not a declaration.
NOT_NAMES = {"func", "var", "let", "init", "subscript", "static", "final", "override", "case"}
# A name not reached through `.` (a member such as `Outer.Inner` counts as a use of `Outer`), with
# what follows it: a capitalised name is a type; a lower-case one is a function when `(` follows
# (a call), a constant unless `:` follows (an argument label).
USE = re.compile(r"(?<![.\w])([A-Za-z_][A-Za-z0-9_]*)\b(\s*[:(])?")
ALLOW = re.compile(r"^allow\s+(\S+)\s+uses\s+([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(\S.*)$")
STRING_START = re.compile(r'(#*)("""|")')


@dataclass(frozen=True)
class Violation:
    file: str
    line: int
    folder: str
    name: str
    declared_in: str

    def __str__(self) -> str:
        return (f"{self.file}:{self.line}: {self.folder} uses {self.name}, declared in {self.declared_in}"
                f" (a higher layer)")


class LayerSpecError(Exception):
    """docs/layers.txt is malformed, or the tree has a folder it does not place."""


def read_layers(path: Path) -> tuple[list[str], dict[tuple[str, str], str]]:
    """The folders lowest first, and the allowed uses (file, type name) with their reasons."""
    layers: list[str] = []
    allowed: dict[tuple[str, str], str] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("allow"):
            match = ALLOW.match(line)
            if not match:
                raise LayerSpecError(f"{path}:{number}: expected 'allow FILE uses TYPE: reason', got {line!r}")
            allowed[(match.group(1), match.group(2))] = match.group(3)
        elif re.fullmatch(r"[A-Za-z0-9_-]+", line):
            if line in layers:
                raise LayerSpecError(f"{path}:{number}: {line} is listed twice")
            layers.append(line)
        else:
            raise LayerSpecError(f"{path}:{number}: expected one folder name, got {line!r}")
    if not layers:
        raise LayerSpecError(f"{path}: no layers listed")
    return layers, allowed


def strip_comments_and_strings(source: str) -> str:
    """The code with comments and string literals blanked (newlines kept, so lines still count).

    Handles nested block comments, multi-line and raw strings (`#"..."#`) and keeps the code of
    interpolations (`\\(...)`, `\\#(...)`).
    """
    out: list[str] = []
    length = len(source)

    def blank(text: str) -> None:
        out.append(re.sub(r"[^\n]", " ", text))

    def code(index: int, inside_interpolation: bool) -> int:
        depth = 0
        while index < length:
            char = source[index]
            if source.startswith("//", index):
                end = source.find("\n", index)
                end = length if end < 0 else end
                blank(source[index:end])
                index = end
                continue
            if source.startswith("/*", index):
                nesting, end = 0, index
                while end < length:
                    if source.startswith("/*", end):
                        nesting, end = nesting + 1, end + 2
                    elif source.startswith("*/", end):
                        nesting, end = nesting - 1, end + 2
                        if nesting == 0:
                            break
                    else:
                        end += 1
                blank(source[index:end])
                index = end
                continue
            if char in '#"':
                start = STRING_START.match(source, index)
                if start and (char == '"' or start.group(1)):
                    index = string(index, len(start.group(1)), start.group(2) == '"""')
                    continue
            if inside_interpolation:
                if char == "(":
                    depth += 1
                elif char == ")":
                    if depth == 0:
                        return index
                    depth -= 1
            out.append(char)
            index += 1
        return index

    def string(index: int, hashes: int, triple: bool) -> int:
        closing = ('"""' if triple else '"') + "#" * hashes
        escape = "\\" + "#" * hashes
        opening = hashes + (3 if triple else 1)
        blank(source[index:index + opening])
        index += opening
        while index < length:
            if source.startswith(escape + "(", index):
                blank(escape + "(")
                index = code(index + len(escape) + 1, inside_interpolation=True)
                if index < length:
                    blank(")")
                    index += 1
            elif source.startswith(escape, index):
                blank(source[index:index + len(escape) + 1])
                index += len(escape) + 1
            elif source.startswith(closing, index):
                blank(closing)
                return index + len(closing)
            else:
                blank(source[index])
                index += 1
        return index

    code(0, inside_interpolation=False)
    return "".join(out)


def top_level_declarations(code: str) -> list[tuple[str, bool]]:
    """The names declared outside any braces, each with whether it is a function: types (nested
    types go with their outer type), and free functions and global constants that other files can see."""
    names: list[tuple[str, bool]] = []
    depth = 0
    globals_at = {match.start(2): match for match in GLOBAL.finditer(code)}
    for match in re.finditer(r"[{}]|" + DECLARATION.pattern + r"|\b(func|let|var)[ \t]+([A-Za-z_][A-Za-z0-9_]*)", code):
        token = match.group(0)
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif depth != 0:
            continue
        elif match.group(1) and match.group(1) not in NOT_NAMES:
            names.append((match.group(1), False))
        elif match.group(3):
            declaration = globals_at.get(match.start(3))
            modifiers = declaration.group(1).split() if declaration else []
            if "private" not in modifiers and "fileprivate" not in modifiers:
                names.append((match.group(3), match.group(2) == "func"))
    return names


def scan(sources: Path, layers: list[str]) -> tuple[dict[str, tuple[str, str]], dict[str, set[str]], set[str]]:
    """Each file's folder and stripped code, each declared name's files, and the names of functions."""
    files: dict[str, tuple[str, str]] = {}
    declared: dict[str, set[str]] = defaultdict(set)
    functions: set[str] = set()
    unplaced: list[str] = []
    for path in sorted(sources.rglob("*.swift")):
        relative = path.relative_to(sources).as_posix()
        folder = relative.split("/")[0] if "/" in relative else ""
        if folder not in layers:
            unplaced.append(relative)
            continue
        code = strip_comments_and_strings(path.read_text(encoding="utf-8"))
        files[relative] = (folder, code)
        for name, is_function in top_level_declarations(code):
            declared[name].add(relative)
            if is_function:
                functions.add(name)
    if unplaced:
        raise LayerSpecError("files outside the folders docs/layers.txt lists (put each in a layer's folder, "
                             "or add its folder there): " + ", ".join(unplaced))
    return files, declared, functions


def shown(path: Path) -> str:
    """The path from the repository's root when it lies inside it (as the messages name files)."""
    try:
        return path.resolve().relative_to(REPOSITORY).as_posix()
    except ValueError:
        return path.as_posix()


def check(sources: Path, layers_file: Path) -> tuple[list[Violation], list[str], dict[tuple[str, str], set[str]]]:
    """The upward uses, the allow lines that matched nothing, and folder → folder uses (for --matrix)."""
    layers, allowed = read_layers(layers_file)
    rank = {folder: index for index, folder in enumerate(layers)}
    files, declared, functions = scan(sources, layers)
    violations: list[Violation] = []
    used_allowances: set[tuple[str, str]] = set()
    uses: dict[tuple[str, str], set[str]] = defaultdict(set)
    for relative, (folder, code) in files.items():
        reported: set[str] = set()
        for line_number, line in enumerate(code.splitlines(), start=1):
            for name, after in USE.findall(line):
                homes = declared.get(name)
                after = after.strip()
                if not homes:
                    continue
                if not name[0].isupper() and (after == ":" or (name in functions and after != "(")):
                    continue
                # A name declared in several folders (behind #if, say) belongs to the lowest.
                home = min((files[file][0] for file in homes), key=rank.__getitem__)
                if home != folder:
                    uses[(folder, home)].add(name)
                if rank[home] <= rank[folder] or name in reported:
                    continue
                reported.add(name)
                if (relative, name) in allowed:
                    used_allowances.add((relative, name))
                    continue
                declaring = min(file for file in homes if files[file][0] == home)
                violations.append(Violation(shown(sources / relative), line_number, folder, name, declaring))
    stale = [f"allow {file} uses {name}" for (file, name) in allowed if (file, name) not in used_allowances]
    return violations, stale, uses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sources", type=Path, default=REPOSITORY / "Sources" / "OfflineOData")
    parser.add_argument("--layers", type=Path, default=REPOSITORY / "docs" / "layers.txt")
    parser.add_argument("--matrix", action="store_true", help="print each folder's uses of the other folders")
    arguments = parser.parse_args(argv)
    try:
        violations, stale, uses = check(arguments.sources, arguments.layers)
    except (LayerSpecError, OSError) as error:
        print(f"check_layers: {error}", file=sys.stderr)
        return 2
    if arguments.matrix:
        for (user, home), names in sorted(uses.items()):
            print(f"{user:10} -> {home:10} {' '.join(sorted(names))}")
    for violation in violations:
        print(violation, file=sys.stderr)
    for line in stale:
        print(f"check_layers: '{line}' in {arguments.layers} matches no use any more: remove it", file=sys.stderr)
    if violations or stale:
        print(f"check_layers: {len(violations)} upward use(s); the order is in {arguments.layers}", file=sys.stderr)
        return 1
    print(f"check_layers: no upward use ({arguments.layers.name}: {', '.join(read_layers(arguments.layers)[0])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
