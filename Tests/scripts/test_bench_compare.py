"""scripts/bench_compare.py (make bench-compare): figures read from real benchmark outputs
(captured in bench-outputs/), medians, ratios, and the flag on a figure more than 5% worse."""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "scripts"))

from benchcompare.benchmarks import select  # noqa: E402
from benchcompare.figures import Figure, compare, format_rows, parse_output  # noqa: E402

OUTPUTS = Path(__file__).resolve().parent / "bench-outputs"


def captured(name: str) -> list[Figure]:
    return parse_output((OUTPUTS / f"{name}.txt").read_text(encoding="utf-8"))


def by_name(figures: list[Figure], name: str, unit: str | None = None) -> Figure:
    matches = [f for f in figures if f.name == name and (unit is None or f.unit == unit)]
    assert len(matches) == 1, [f"{f.name} [{f.unit}]" for f in figures]
    return matches[0]


def scaled(figures: list[Figure], factors: dict[str, float]) -> list[Figure]:
    return [dataclasses.replace(f, value=f.value * factors.get(f.name, 1.0)) for f in figures]


def test_the_swift_harness_gives_each_figure_with_its_unit_and_its_baseline_as_reference():
    figures = captured("json")
    per_entity = by_name(figures, "json write 50,000 entities", "ns/entity")
    rate = by_name(figures, "json write 50,000 entities", "MB/s")
    assert not per_entity.higher_is_better and rate.higher_is_better
    assert not per_entity.reference
    assert any(f.reference and f.name.startswith("json write 50,000 entities [baseline") for f in figures)
    # "json: page of 1000 entities, N bytes" is no timing of two builds to compare, but harmless:
    # every figure of the output has a number and a unit.
    assert all(f.value >= 0 and f.unit for f in figures)


def test_the_c_call_overhead_line_gives_the_library_call_and_the_c_baseline():
    figures = captured("call-overhead")
    assert [(f.name, f.value, f.reference) for f in figures] == [
        ("call overhead: C -> libofflineodata.so (ood_version_number)", 12.711, False),
        ("call overhead: C -> libofflineodata.so (ood_version_number) [baseline C -> C .so]", 12.488, True),
    ]


def test_bench_lines_are_the_only_figures_where_a_driver_prints_them():
    figures = captured("ctypes-call")
    assert [(f.name, f.unit, f.reference) for f in figures] == [
        ("ctypes-call.ood_version_number", "ns", False), ("ctypes-call.python-call", "ns", True)]


def test_a_figure_more_than_5_percent_worse_is_flagged_and_a_better_one_is_not():
    base = captured("json")
    events_name, rate_name = "json read events", "json parse page into JSONValue"
    assert by_name(base, events_name).unit == "entities/s" and by_name(base, rate_name).unit == "MB/s"
    new = scaled(base, {"json write 50,000 entities": 1.06,  # ns/entity up 6% (worse), MB/s up 6% (better)
                        events_name: 0.94,  # a rate 6% down: worse
                        rate_name: 1.30,  # a rate 30% up: better
                        "json read events (touch every token)": 0.96})  # 4% down: within 5%
    comparisons = {(c.name, c.unit): c for c in compare([base], [new])}
    assert comparisons[("json write 50,000 entities", "ns/entity")].worse
    assert not comparisons[("json write 50,000 entities", "MB/s")].worse
    assert comparisons[(events_name, "entities/s")].worse
    assert not comparisons[(rate_name, "MB/s")].worse
    assert not comparisons[("json read events (touch every token)", "MB/s")].worse
    assert comparisons[("json write 50,000 entities", "ns/entity")].ratio == pytest.approx(1.06)
    rows = format_rows(list(comparisons.values()))
    flagged = [row for row in rows if "WORSE" in row]
    assert len(flagged) == 2 and any("ns/entity" in row for row in flagged)


def test_a_time_a_third_faster_or_just_under_5_percent_slower_is_not_flagged():
    base = captured("call-overhead")
    name = base[0].name
    assert not compare([base], [scaled(base, {name: 0.66})])[0].worse
    assert not compare([base], [scaled(base, {name: 1.049})])[0].worse
    assert compare([base], [scaled(base, {name: 1.051})])[0].worse


def test_a_reference_figure_is_shown_but_never_flagged():
    base = captured("ctypes-call")
    comparisons = compare([base], [scaled(base, {"ctypes-call.python-call": 2.0})])
    reference = next(c for c in comparisons if c.reference)
    assert reference.ratio == pytest.approx(2.0) and not reference.worse


def test_the_medians_over_the_rounds_are_compared():
    base = captured("ctypes-call")
    name = "ctypes-call.ood_version_number"
    value = by_name(base, name).value
    base_runs = [scaled(base, {name: factor}) for factor in (1.0, 3.0, 1.02)]  # one slow outlier
    new_runs = [scaled(base, {name: factor}) for factor in (1.04, 1.03, 0.5)]
    comparison = next(c for c in compare(base_runs, new_runs) if c.name == name)
    assert comparison.base == pytest.approx(value * 1.02) and comparison.new == pytest.approx(value * 1.03)
    assert not comparison.worse


def test_a_figure_of_one_build_only_is_shown_as_missing_and_not_flagged():
    base = captured("ctypes-call")
    comparisons = compare([base[:1]], [base])
    only_new = next(c for c in comparisons if c.base is None)
    assert only_new.ratio is None and not only_new.worse
    assert "base missing" in format_rows([only_new])[0]


def test_an_unknown_benchmark_name_is_an_error_that_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown benchmark.*nosuch.*known: call-overhead"):
        select("json nosuch")
    assert [b.name for b in select("json, read")] == ["json", "read"]


def test_an_unknown_base_revision_is_refused_before_anything_is_built(tmp_path):
    result = subprocess.run([sys.executable, str(REPOSITORY / "scripts" / "bench_compare.py"), "--base", "no-such-rev",
                             "--scratch", str(tmp_path), "--build-dir", str(tmp_path), "--fixtures", str(tmp_path)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert "BASE=no-such-rev is not a commit" in result.stderr
    assert not (REPOSITORY / ".build-bench-base" / "no-such-rev").exists()


def test_a_summary_line_with_times_in_its_name_is_not_a_figure_but_the_harness_lines_are():
    figures = captured("write")
    names = [f.name for f in figures]
    assert not any(name.startswith("write: ") for name in names), names
    assert by_name(figures, "write (the same through the store API, all issued at once: group commit)").higher_is_better
    assert len([f for f in figures if not f.reference]) == 2


def test_ratio_and_budget_parts_of_a_line_are_not_figures():
    figures = captured("filter-bind")
    assert [(f.name, f.unit, f.reference) for f in figures] == [
        ("filter-bind: parse + bind", "µs", False),
        ("filter-bind: parse + bind [baseline parse alone]", "µs", True),
        ("filter-bind: parse + bind + translate to SQL", "µs", False),
        ("filter-bind: parse + bind + translate to SQL [baseline parse alone]", "µs", True),
    ]


def test_a_prebuilt_base_without_the_swift_benchmarks_gets_them_built_in_its_own_scratch(tmp_path, monkeypatch):
    """make cmake-build (what BASE_BUILD points at) does not build offline-odata-benchmarks: the
    comparison builds them into that checkout's scratch once, instead of failing every Swift benchmark."""
    from benchcompare import builds

    prebuilt = tmp_path / "base-checkout"
    (prebuilt / ".build-release" / "release").mkdir(parents=True)
    built: list[tuple[Path, Path]] = []
    monkeypatch.setattr(builds, "base_source", lambda repository, sha: tmp_path / "src")
    monkeypatch.setattr(builds, "build_benchmarks", lambda source, scratch: built.append((source, scratch)))
    build = builds.base_build(tmp_path, "0" * 40, prebuilt)
    assert built == [(prebuilt, prebuilt / ".build-release")]
    assert build.scratch == prebuilt / ".build-release" and build.source == tmp_path / "src"

    # Once they are there, nothing is built again.
    (prebuilt / ".build-release" / "release" / "offline-odata-benchmarks").write_text("")
    built.clear()
    builds.base_build(tmp_path, "0" * 40, prebuilt)
    assert built == []
