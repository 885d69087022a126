"""ctypes call overhead: one call of ood_version_number through the binding's declaration, against
a call of a pure-Python function returning the same value, medians from one run."""
import statistics
import time

from bench_figure import report_figure
from offline_odata import _capi

CALLS = 200_000
SAMPLES = 9


def python_version_number():
    return 1000


def per_call_ns(function):
    start = time.perf_counter_ns()
    for _ in range(CALLS):
        function()
    return (time.perf_counter_ns() - start) / CALLS


def main():
    native, baseline = [], []
    for _ in range(SAMPLES):
        native.append(per_call_ns(_capi.ood_version_number))
        baseline.append(per_call_ns(python_version_number))
    n, b = statistics.median(native), statistics.median(baseline)
    print(f"ctypes call: ood_version_number {n:.1f} ns/call | baseline pure-Python call {b:.1f} ns/call"
          f" | ratio {n / b:.2f} | budget <= 1000 ns/call (median of {SAMPLES} x {CALLS})")
    report_figure("ctypes-call.ood_version_number", n, "ns")
    report_figure("ctypes-call.python-call", b, "ns", reference=True)


if __name__ == "__main__":
    main()
