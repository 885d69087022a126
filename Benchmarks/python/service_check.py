#!/usr/bin/env python3
"""`make bench`: the cost of a service-model check on an unchanged service (issue 34), against the
one request it sends. Starts the V2 test service (mock-sap: its $metadata has an ETag, so the check
is one conditional request answered 304) and the V4 one (odatapy: no ETag, so the document is read
and hashed), and runs `offline-odata-benchmarks service-check ROOT ROUNDS` against each.

    service_check.py BENCHMARKS_BINARY [ROUNDS]
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "backends"))
import backends  # noqa: E402


def main() -> int:
    binary = sys.argv[1]
    rounds = sys.argv[2] if len(sys.argv) > 2 else "1000"
    status = 0
    for name, start in (("V2 (mock-sap, ETag)", lambda: backends.start_v2(csrf=False)),
                        ("V4 (odatapy, no ETag)", lambda: backends.start_v4())):
        with start() as backend:
            print(f"-- {name}: {backend.service_root}", flush=True)
            status |= subprocess.run([binary, "service-check", backend.service_root, rounds]).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
