"""The figures of a benchmark's output, and how two builds' figures compare.

Two output forms are read. The Python drivers print `BENCH name=... value=... unit=... better=...`
lines (Benchmarks/python/bench_figure.py); where a run prints any, only those count. The Swift
harness and the C benchmarks print `name: value unit | baseline other: value unit | ratio r`;
there the first part is the engine's figure and each `baseline` part a reference figure.
"""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

# Worse by more than this fraction of BASE's median is flagged.
THRESHOLD = 0.05

BENCH_LINE = re.compile(r"^BENCH name=(?P<name>\S+) value=(?P<value>\S+) unit=(?P<unit>\S+) "
                        r"better=(?P<better>lower|higher)(?P<reference> reference)?\s*$")
# A part of a line that ends in a number and its unit: "name: 12.5 µs", "C -> C .so 1.2 ns/call".
FIGURE_PART = re.compile(r"^(?P<name>.*?):? (?P<value>-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?) (?P<unit>\S+)$")
# A name with a measured time in it ("write: 3671.186 µs per write one at a time, ... floor 1956 µs")
# is a summary line, not a figure: its name would differ from run to run.
TIME_IN_NAME = re.compile(r"\d (?:ns|µs|us|ms|s)\b")


@dataclass(frozen=True)
class Figure:
    name: str
    value: float
    unit: str
    higher_is_better: bool
    reference: bool = False


def higher_is_better(unit: str) -> bool:
    """Rates (entities/s, MB/s, writes/s) are better higher; times, bytes and memory lower."""
    return unit.endswith("/s")


def parse_output(text: str) -> list[Figure]:
    """The figures of one run of a benchmark, in the order it printed them."""
    lines = text.splitlines()
    tagged = [match for match in map(BENCH_LINE.match, lines) if match]
    if tagged:
        return [Figure(m["name"], float(m["value"]), m["unit"], m["better"] == "higher", bool(m["reference"]))
                for m in tagged]
    figures: list[Figure] = []
    for line in lines:
        parts = [part.strip() for part in line.split(" | ")]
        main = FIGURE_PART.match(parts[0])
        if not main or parts[0].startswith(("ratio", "budget")) or TIME_IN_NAME.search(main["name"]):
            continue
        name = main["name"].strip().rstrip(",;:")
        figures.append(Figure(name, _number(main["value"]), main["unit"], higher_is_better(main["unit"])))
        for part in parts[1:]:
            other = FIGURE_PART.match(part)
            if part.startswith("baseline ") and other:
                figures.append(Figure(f"{name} [{other['name'].strip()}]", _number(other["value"]), other["unit"],
                                      higher_is_better(other["unit"]), reference=True))
    return figures


def _number(text: str) -> float:
    return float(text.replace(",", ""))


@dataclass(frozen=True)
class Comparison:
    name: str
    unit: str
    base: float | None
    new: float | None
    higher_is_better: bool
    reference: bool

    @property
    def ratio(self) -> float | None:
        """NEW's median over BASE's."""
        if self.base is None or self.new is None or self.base == 0:
            return None
        return self.new / self.base

    @property
    def worse(self) -> bool:
        """More than THRESHOLD worse than BASE, in the figure's own direction (never a reference)."""
        ratio = self.ratio
        if ratio is None or self.reference:
            return False
        return ratio < 1 - THRESHOLD if self.higher_is_better else ratio > 1 + THRESHOLD


def compare(base_runs: list[list[Figure]], new_runs: list[list[Figure]]) -> list[Comparison]:
    """Each figure's median over the runs of each build, in the order the figures first appear."""
    base, new = _medians(base_runs), _medians(new_runs)
    keys = list(dict.fromkeys([*new, *base]))
    comparisons = []
    for key in keys:
        sample = (new.get(key) or base[key])[0]
        comparisons.append(Comparison(sample.name, sample.unit, base[key][1] if key in base else None,
                                      new[key][1] if key in new else None,
                                      sample.higher_is_better, sample.reference))
    return comparisons


def _medians(runs: list[list[Figure]]) -> dict[tuple[str, str], tuple[Figure, float]]:
    """Keyed by name and unit: one line may give a figure twice, in two units (ns/entity, MB/s)."""
    values: dict[tuple[str, str], list[Figure]] = {}
    for run in runs:
        for figure in run:
            values.setdefault((figure.name, figure.unit), []).append(figure)
    return {key: (figures[0], statistics.median(f.value for f in figures)) for key, figures in values.items()}


def format_rows(comparisons: list[Comparison]) -> list[str]:
    """One line a figure: BASE's median, NEW's median, the ratio, and WORSE where flagged."""
    rows = []
    for c in comparisons:
        ratio = c.ratio
        direction = "higher better" if c.higher_is_better else "lower better"
        mark = "WORSE >5%" if c.worse else ("reference" if c.reference else "")
        rows.append(f"  {c.name}: base {_show(c.base)} {c.unit} | new {_show(c.new)} {c.unit} | "
                    f"ratio {'-' if ratio is None else f'{ratio:.3f}'} ({direction}) {mark}".rstrip())
    return rows


def _show(value: float | None) -> str:
    return "missing" if value is None else f"{value:.4g}"
