"""The baseline `make bench` compares ingest with: a plain reader of three of the authors' formats.

Standard library only (re, csv): it reads the HPC logs (LINPACK trials, STREAM rates,
RandomAccess GUPS), the redis-benchmark transcripts and the sysbench 0.4 reports of the authors'
tree and writes every value ingest takes from them (about the same 75,000 rows: each sysbench
report's 21 fields, each redis test's rate and latency buckets, each HPC trial) with its file
and line to one CSV file. It checks nothing, knows no units, converts nothing and writes no
Parquet: it is what "just grep the numbers out" costs, the floor that ingest of *all* formats
(with validation, provenance and typed Parquet output) is measured against.

usage: python scripts/bench_baseline.py TREE OUT.csv   (prints the row count)
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

LINPACK = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+\S+\s+\S+\s+pass", re.M)
STREAM = re.compile(r"^(Copy|Scale|Add|Triad):\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)", re.M)
GUPS = re.compile(r"([0-9.]+) Billion\(10\^9\) Updates\s+per second", re.M)
REDIS_TEST = re.compile(r"====== (\S+) ======")
REDIS_RPS = re.compile(r"([0-9.]+) requests per second")
REDIS_DONE = re.compile(r"(\d+) requests completed in ([0-9.]+) seconds")
REDIS_BUCKET = re.compile(r"^([0-9.]+)% <= (\d+) milliseconds")
SB_THREADS = re.compile(r"Number of threads: (\d+)")
# "name: value" and "name: value (rate per sec.)" lines of a sysbench 0.4 report, and the
# "a/b" pairs of its fairness lines
SB_FIELD = re.compile(r"^\s*([a-z][a-z /.95]*?):\s+([0-9.]+)(?:ms|s)?(?:\s+\(([0-9.]+) per sec\.\))?\s*$")
SB_PAIR = re.compile(r"^\s*(events|execution time) \(avg/stddev\):\s+([0-9.]+)/([0-9.]+)")


def hpc(path: Path, writer) -> int:
    """LINPACK, STREAM and GUPS numbers of one log."""
    text = path.read_text(errors="replace")
    n = 0
    for m in LINPACK.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        writer.writerow([str(path), line, "linpack", "seconds", m.group(4)])
        writer.writerow([str(path), line, "linpack", "gflops", m.group(5)])
        n += 2
    for m in STREAM.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        for k, what in enumerate(("rate", "avg", "min", "max"), start=2):
            writer.writerow([str(path), line, "stream", f"{m.group(1)} {what}", m.group(k)])
        n += 4
    for m in GUPS.finditer(text):
        writer.writerow([str(path), text.count("\n", 0, m.start()) + 1, "gups", "gups", m.group(1)])
        n += 1
    return n


def redis(path: Path, writer) -> int:
    """Requests, duration, latency buckets and requests per second of every test block."""
    test, n = None, 0
    for lineno, line in enumerate(path.read_text(errors="replace").split("\n"), start=1):
        line = line[line.rfind("\r") + 1:]  # what the progress line finally showed
        m = REDIS_TEST.search(line)
        if m:
            test = m.group(1)
            continue
        if test is None:
            continue
        if m := REDIS_BUCKET.match(line):
            writer.writerow([str(path), lineno, "redis", f"{test} <= {m.group(2)} ms", m.group(1)])
            n += 1
        elif m := REDIS_DONE.search(line):
            writer.writerow([str(path), lineno, "redis", f"{test} requests", m.group(1)])
            writer.writerow([str(path), lineno, "redis", f"{test} duration", m.group(2)])
            n += 2
        elif m := REDIS_RPS.search(line):
            writer.writerow([str(path), lineno, "redis", test, m.group(1)])
            test, n = None, n + 1
    return n


def sysbench(path: Path, writer) -> int:
    """Every field of every report of one file, keyed by the report's thread count."""
    n, threads = 0, None
    for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        if m := SB_THREADS.search(line):
            threads = m.group(1)
        elif m := SB_FIELD.match(line):
            writer.writerow([str(path), lineno, "sysbench", f"{m.group(1)}@{threads}", m.group(2)])
            n += 1
            if m.group(3):
                writer.writerow([str(path), lineno, "sysbench", f"{m.group(1)} rate@{threads}", m.group(3)])
                n += 1
        elif m := SB_PAIR.match(line):
            writer.writerow([str(path), lineno, "sysbench", f"{m.group(1)} avg@{threads}", m.group(2)])
            writer.writerow([str(path), lineno, "sysbench", f"{m.group(1)} sd@{threads}", m.group(3)])
            n += 2
    return n


def main() -> None:
    """Read the three formats of the tree given on the command line into one CSV file."""
    tree, out = Path(sys.argv[1]), Path(sys.argv[2])
    rows = 0
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "line", "format", "metric", "value"])
        for pattern in ("linpack/results/*.log", "Stream/results/*.log", "RandomAccess/results/*.log"):
            for p in sorted(tree.glob(pattern)):
                rows += hpc(p, w)
        for p in sorted(tree.glob("redis/results/run_*.txt")):
            rows += redis(p, w)
        for pattern in ("mysql/results/*/records-*", "mysql/results/*/*/records-*",
                        "mysql/results/*/results-2000000*"):
            for p in sorted(tree.glob(pattern)):
                if p.suffix != ".csv":
                    rows += sysbench(p, w)
    print(rows)


if __name__ == "__main__":
    main()
