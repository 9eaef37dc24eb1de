"""`make bench`: speed figures for ingest and for every parser, printed as a table.

- ingest-ibm over the authors' whole tree, cold (empty output folder: parse everything) and warm
  (nothing changed: the content-hash cache answers), each timed as a whole process, like a user
  runs it. Targets: cold < 2.4 s, warm < 0.2 s on the 2-core development machine.
- parse throughput per parser (MB/s and rows/s) on its fixtures and, for the IBM formats, on the
  authors' files, timed in-process (parser only, no file reading).

Timings are medians over repetitions; min and max show how noisy the machine was.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


def _spread(xs: list[float]) -> str:
    """median [min-max] of a list of seconds, formatted."""
    return f"{statistics.median(xs):.3f} s [{min(xs):.3f}-{max(xs):.3f}]"


def bench_ingest(ibm: Path, runs: int) -> list[str]:
    """Time cold and warm `overhead ingest-ibm` as whole processes."""
    exe = Path(sys.executable).with_name("overhead")
    out = Path(tempfile.mkdtemp(prefix="overhead-bench-"))
    cold, warm = [], []
    try:
        for _ in range(runs):
            shutil.rmtree(out, ignore_errors=True)
            t = time.perf_counter()
            subprocess.run([exe, "ingest-ibm", str(ibm), "--out", str(out)], check=True,
                           stdout=subprocess.DEVNULL)
            cold.append(time.perf_counter() - t)
        for _ in range(runs + 2):
            t = time.perf_counter()
            subprocess.run([exe, "ingest-ibm", str(ibm), "--out", str(out)], check=True,
                           stdout=subprocess.DEVNULL)
            warm.append(time.perf_counter() - t)
        rows = subprocess.run([exe, "ingest-ibm", str(ibm), "--out", str(out)], check=True,
                              capture_output=True, text=True).stdout.strip()
    finally:
        shutil.rmtree(out, ignore_errors=True)
    size = sum(f.stat().st_size for f in ibm.rglob("*") if f.is_file())
    return [
        f"ingest-ibm over {ibm} ({size / 1e6:.1f} MB, {runs} cold / {runs + 2} warm runs)",
        f"  cold (parse everything)   {_spread(cold)}   target < 2.4 s   {'OK' if statistics.median(cold) < 2.4 else 'MISSED'}",
        f"  warm (nothing changed)    {_spread(warm)}   target < 0.2 s   {'OK' if statistics.median(warm) < 0.2 else 'MISSED'}",
        f"  {rows}",
    ]


def _inputs(tool: str, ibm: Path | None) -> list[tuple[str, str]]:
    """(name, text) of the inputs a parser is benchmarked on: its fixtures and IBM files."""
    from overhead import parsers

    found = []
    folder = FIXTURES / tool
    if folder.is_dir():
        for f in sorted(folder.rglob("*")):
            if f.is_file() and f.name != "README.md":
                try:
                    text = parsers.read_text(f)
                    parsers.parse_text(tool, text, f.name)
                except parsers.ParseError:
                    continue  # deliberately broken fixtures are for error tests
                found.append((f.name, text))
    if ibm is not None:
        from overhead.ingest import _plan

        plan, _, _ = _plan(ibm)
        for rel, rule in plan.items():
            if rule.tool == tool:
                found.append((rel, (ibm / rel).read_text()))
    return found


def bench_parsers(ibm: Path | None, min_seconds: float) -> list[str]:
    """Parse throughput per registered parser."""
    from overhead import parsers

    lines = [f"{'parser':<16} {'inputs':>6} {'MB':>8} {'rows':>9} {'MB/s':>8} {'rows/s':>11}"]
    for tool in sorted(parsers.PARSERS):
        try:
            parsers.module(tool)
        except ModuleNotFoundError:
            lines.append(f"{tool:<16} (no module)")
            continue
        inputs = _inputs(tool, ibm)
        if not inputs:
            lines.append(f"{tool:<16} (no inputs)")
            continue
        nbytes = sum(len(t.encode()) for _, t in inputs)
        reps, elapsed, rows = 0, 0.0, 0
        while elapsed < min_seconds or reps < 2:
            t = time.perf_counter()
            rows = sum(len(parsers.parse_text(tool, text, name)) for name, text in inputs)
            elapsed += time.perf_counter() - t
            reps += 1
        per = elapsed / reps
        lines.append(f"{tool:<16} {len(inputs):>6} {nbytes / 1e6:>8.3f} {rows:>9} "
                     f"{nbytes / 1e6 / per:>8.1f} {rows / per:>11,.0f}")
    return lines


def main() -> None:
    """Run the benchmarks and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ibm", default="", help="the authors' tree (kvm-docker-comparison)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--min-seconds", type=float, default=0.3)
    args = ap.parse_args()
    ibm = Path(args.ibm) if args.ibm and Path(args.ibm).is_dir() else None
    print("overhead benchmarks (wall-clock; median [min-max])\n")
    if ibm is not None:
        print("\n".join(bench_ingest(ibm, args.runs)))
    else:
        print("ingest-ibm: skipped, the authors' data was not found (make bench IBM_DATA=...)")
    print()
    print("\n".join(bench_parsers(ibm, args.min_seconds)))


if __name__ == "__main__":
    main()
