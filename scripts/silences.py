#!/usr/bin/env python3
"""Runs a command and measures what a newcomer waits through: each line of its output (standard
output and error together) printed with the seconds since the start, then the total time and the
longest silence (the longest gap between two lines, or before the first).

    scripts/silences.py make demo
"""
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    start = last = time.monotonic()
    longest, longest_after = 0.0, "(the start)"
    process = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for raw in iter(process.stdout.readline, b""):
        now = time.monotonic()
        if now - last > longest:
            longest = now - last
            longest_after = previous if last != start else "(the start)"
        line = raw.decode(errors="replace").rstrip("\n")
        print(f"[{now - start:7.1f}s] {line}", flush=True)
        previous, last = line, now
    code = process.wait()
    now = time.monotonic()
    if now - last > longest:
        longest, longest_after = now - last, previous if last != start else "(the start)"
    print(f"total {now - start:.1f} s, exit {code}; longest silence {longest:.1f} s, after: {longest_after[:120]}")
    sys.exit(code)


if __name__ == "__main__":
    main()
