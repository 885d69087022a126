"""Local read of 50,000 entities as OData JSON (the engine) against Python's sqlite3 fetching the
same rows as tuples (issue 5's baseline), measured in one run.

Runs the Swift `read` benchmark (given as the first argument), takes its median for
`read (b)`, then builds the same 1,000,000-row table in a temporary file, fetches the 50,000 rows
of `City = 'City7'` with `fetchall()` (tuples: the least Python can do), and prints both with
the ratio. Budget: the engine faster than Python's sqlite3.
"""
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time


def python_baseline_ms():
    folder = tempfile.mkdtemp(prefix="ood-read-baseline-")
    path = os.path.join(folder, "baseline.sqlite")
    connection = sqlite3.connect(path)
    connection.execute('CREATE TABLE agencies ("ID" INTEGER PRIMARY KEY, "Name" TEXT, "City" TEXT, "Rating" INTEGER, '
                       '"Revenue" TEXT, "Founded" TEXT)')
    rows = ((i, f"Agency {i}", f"City{i % 20}", i % 5, f"{i % 1000}.{i % 100}",
             f"20{10 + i % 10}-0{1 + i % 9}-1{i % 9}T12:34:56.0000000Z") for i in range(1_000_000))
    connection.executemany("INSERT INTO agencies VALUES (?, ?, ?, ?, ?, ?)", rows)
    connection.execute('CREATE INDEX agencies_city ON agencies ("City")')
    connection.commit()
    connection.execute("ANALYZE")
    query = 'SELECT "ID", "Name", "City", "Rating", "Revenue", "Founded" FROM agencies WHERE "City" = ? ORDER BY "ID"'
    times = []
    for _ in range(9):
        start = time.perf_counter()
        result = connection.execute(query, ("City7",)).fetchall()
        times.append((time.perf_counter() - start) * 1000)
        assert len(result) == 50_000
    connection.close()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    os.rmdir(folder)
    return statistics.median(times)


def main():
    benchmark = sys.argv[1]
    output = subprocess.run([benchmark, "read"], capture_output=True, text=True, check=True).stdout
    sys.stdout.write(output)
    match = re.search(r"read \(b\): 50,000 entities as JSON: ([0-9.]+) ms", output)
    if not match:
        sys.exit("the read benchmark did not report read (b)")
    engine = float(match.group(1))
    python = python_baseline_ms()
    verdict = "faster" if engine < python else "slower"
    print(f"read (b) vs Python: engine, 50,000 entities as OData JSON: {engine:.3f} ms | "
          f"baseline Python sqlite3 fetchall() of the same rows as tuples: {python:.3f} ms | "
          f"ratio {engine / python:.3f} ({verdict}) | budget: faster")


if __name__ == "__main__":
    main()
