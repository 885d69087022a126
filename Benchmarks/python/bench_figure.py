"""One machine-readable line per figure, beside a benchmark's human-readable report, for
`make bench-compare` (scripts/bench_compare.py), which compares the figures of two builds:

    BENCH name=<name without spaces> value=<number> unit=<unit> better=lower|higher [reference]

`reference` marks a figure that does not measure the engine (a Python baseline, the server's
share), shown by the comparison but never counted as a regression.
"""


def report_figure(name: str, value: float, unit: str, better: str = "lower", reference: bool = False) -> None:
    if " " in name or " " in unit or better not in ("lower", "higher"):
        raise ValueError(f"bad figure {name!r} {unit!r} {better!r}")
    print(f"BENCH name={name} value={value:.6g} unit={unit} better={better}" + (" reference" if reference else ""),
          flush=True)
