"""`make bench`: speed figures for ingest and for every parser, printed as a table.

- Cold ingest of the authors' whole tree (empty output folder: parse everything), timed as a
  whole process like a user runs it (`overhead ingest-ibm`), against a baseline measured in the
  same run: ``scripts/bench_baseline.py``, a plain reader of three of the formats (HPC logs,
  redis transcripts, sysbench reports) with ``re``/``csv`` only that writes the same ~75,000
  values to a CSV file. Goal: cold ingest of *all* formats in no more time than the baseline
  takes for three (ratio <= 1). Beside it, in the same run, a process that only imports what
  the command imports (the floor of any cold ingest with these libraries), and the ratio of
  cold ingest less that floor. Each run also gives cold ingest's breakdown by phase (imports,
  planning and hashing, each format's parse time in the workers, writing), from a second,
  instrumented cold ingest.
- Warm ingest (nothing changed: the content-hash cache answers). Target < 0.2 s.
- Parse throughput per parser (MB/s and rows/s) on its fixtures and, for the IBM formats, on the
  authors' files, timed in-process (parser only, no file reading).
- Parser timings before and after a change, on the same inputs: ``--save-inputs FILE`` keeps
  the inputs of the checkout it runs in (a pickle of every parser's fixtures and IBM files);
  ``--inputs FILE`` times the current parsers on such a set (ms per input, best of 5; an input
  the current code refuses is left out and counted). ``make bench-parsers`` runs the parser
  part alone (``INPUTS=`` / ``SAVE_INPUTS=`` pass the two options).
- The explore notebook's view changes on the authors' data (``overhead.explore``): each change
  as the widget makes it (the new view resolved, its summary, its plotly figure and its table in
  words), median [min-max] over repetitions. Goal: under 0.3 s a change.
- A campaign's ingest at scale (``scripts/bench_campaign_ingest.py``): 10,000 trial directories
  copied from genuine runner outputs, ingested cold, then 10 more ingested incrementally
  (goal < 1 s). ``--campaign-trials 0`` leaves it out.

Timings are medians over repetitions; min and max show how noisy the machine was.
"""

from __future__ import annotations

import argparse
import json
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


def _timed(argv: list[str]) -> tuple[float, str]:
    """Run a command as a whole process; (wall seconds, its stdout)."""
    t = time.perf_counter()
    done = subprocess.run(argv, check=True, capture_output=True, text=True)
    return time.perf_counter() - t, done.stdout


# An instrumented cold ingest in a fresh interpreter: the imports, then ingest's own phases.
_CHILD = """
import json, sys, time
t0 = time.perf_counter()
import pandas, pyarrow.parquet, numpy
from overhead import parsers, schema, ingest
from overhead.rc25482 import RULESET
imports = time.perf_counter() - t0
r = ingest.ingest(sys.argv[1], sys.argv[2], RULESET, force=True)
print(json.dumps({"imports (pandas, pyarrow, overhead)": imports, **r.phases,
                  "total in-process": time.perf_counter() - t0}))
"""


#: What `overhead ingest-ibm` imports before it reads a file: timed alone, the floor of a cold ingest.
_IMPORTS_ONLY = ("import pandas, pyarrow.parquet, pyarrow.csv, pyarrow.compute, typer\n"
                 "import overhead.cli, overhead.ingest, overhead.parsers, overhead.schema\n"
                 "from overhead.rc25482 import RULESET")


def bench_ingest(ibm: Path, runs: int) -> list[str]:
    """Time cold ingest against the baseline reader (same run), its phases, and warm ingest."""
    exe = Path(sys.executable).with_name("overhead")
    tmp = Path(tempfile.mkdtemp(prefix="overhead-bench-"))
    out = tmp / "tidy"
    rows = []
    phases: list[dict[str, float]] = []
    warm = []
    try:
        for _ in range(runs):
            shutil.rmtree(out, ignore_errors=True)
            base, nrows = _timed([sys.executable, str(ROOT / "scripts" / "bench_baseline.py"), str(ibm),
                                  str(tmp / "baseline.csv")])
            cold, _ = _timed([str(exe), "ingest-ibm", str(ibm), "--out", str(out)])
            floor, _ = _timed([sys.executable, "-c", _IMPORTS_ONLY])
            rows.append((cold, base, int(nrows), floor))
            _, report = _timed([sys.executable, "-c", _CHILD, str(ibm), str(tmp / "phases")])
            phases.append(json.loads(report))
        for _ in range(runs + 2):
            warm.append(_timed([str(exe), "ingest-ibm", str(ibm), "--out", str(out)])[0])
        summary = _timed([str(exe), "ingest-ibm", str(ibm), "--out", str(out)])[1].strip()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    size = sum(f.stat().st_size for f in ibm.rglob("*") if f.is_file())
    lines = [f"cold ingest of the authors' tree ({size / 1e6:.1f} MB) vs the baseline reader of three "
             f"formats ({rows[0][2]:,} values), {runs} runs",
             f"  {'run':>3} {'cold ingest':>12} {'baseline':>10} {'ratio':>7} {'imports only':>13} "
             f"{'ingest less imports':>20} {'ratio':>7}"]
    for i, (cold, base, _, floor) in enumerate(rows, start=1):
        lines.append(f"  {i:>3} {cold:>10.3f} s {base:>8.3f} s {cold / base:>7.2f} {floor:>11.3f} s "
                     f"{cold - floor:>18.3f} s {(cold - floor) / base:>7.2f}")
    ratios = [c / b for c, b, _, _ in rows]
    goal = statistics.median(ratios) <= 1.0
    lines.append(f"  median ratio {statistics.median(ratios):.2f} (goal <= 1: {'MET' if goal else 'NOT MET'}); "
                 f"less the imports {statistics.median([(c - f) / b for c, b, _, f in rows]):.2f}")
    lines.append("  imports only: a process that starts Python and imports what the command needs (typer, "
                 "pandas, pyarrow, overhead) and does nothing else: the floor of any cold ingest here")
    lines.append("  breakdown of an instrumented cold ingest, seconds per run (worker CPU runs in parallel)")
    for key in phases[0]:
        lines.append(f"    {key:<44} " + " ".join(f"{p.get(key, float('nan')):7.3f}" for p in phases))
    lines += [f"warm ingest (nothing changed)  {_spread(warm)}   target < 0.2 s   "
              f"{'OK' if statistics.median(warm) < 0.2 else 'MISSED'}", f"  {summary}"]
    return lines


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
        from overhead.ingest import plan
        from overhead.rc25482 import RULESET

        files, _, _ = plan(ibm, RULESET)
        for rel, rule in files.items():
            if rule.tool == tool:
                found.append((rel, (ibm / rel).read_text()))
    return found


def bench_parsers(ibm: Path | None, min_seconds: float) -> list[str]:
    """Parse throughput per registered parser."""
    from overhead import parsers

    lines = [f"{'parser':<18} {'inputs':>6} {'MB':>8} {'rows':>9} {'MB/s':>8} {'rows/s':>11} "
             f"{'ms/input':>9}"]
    for tool in sorted(parsers.PARSERS):
        try:
            parsers.module(tool)
        except ModuleNotFoundError:
            lines.append(f"{tool:<18} (no module)")
            continue
        inputs = _inputs(tool, ibm)
        if not inputs:
            lines.append(f"{tool:<18} (no inputs)")
            continue
        nbytes = sum(len(t.encode()) for _, t in inputs)
        reps, elapsed, rows = 0, 0.0, 0
        while elapsed < min_seconds or reps < 2:
            t = time.perf_counter()
            rows = sum(len(parsers.parse_text(tool, text, name)) for name, text in inputs)
            elapsed += time.perf_counter() - t
            reps += 1
        per = elapsed / reps
        # small fixtures: the fixed cost per file (building the frame) shows in ms/input
        lines.append(f"{tool:<18} {len(inputs):>6} {nbytes / 1e6:>8.3f} {rows:>9} "
                     f"{nbytes / 1e6 / per:>8.1f} {rows / per:>11,.0f} "
                     f"{per / len(inputs) * 1e3:>9.2f}")
    return lines


def save_inputs(ibm: Path | None, path: Path) -> list[str]:
    """Pickle every parser's inputs (see :func:`_inputs`) to ``path`` for a later ``--inputs``."""
    import pickle

    from overhead import parsers

    data = {}
    for tool in sorted(parsers.PARSERS):
        try:
            parsers.module(tool)
        except ModuleNotFoundError:
            continue
        data[tool] = _inputs(tool, ibm)
    path.write_bytes(pickle.dumps(data))
    return [f"saved the inputs of {len(data)} parsers "
            f"({sum(len(v) for v in data.values())} files) to {path}"]


def bench_saved_inputs(path: Path, min_seconds: float) -> list[str]:
    """Time the current parsers on a saved input set: ms per input, best of 5 repetitions.

    The same files before and after a change make the two timings comparable; an input the
    current code refuses (a cut capture that now fails cleanly) is left out and counted.
    """
    import pickle

    from overhead import parsers

    data = pickle.loads(path.read_bytes())
    lines = [f"{'parser':<18} {'inputs':>6} {'refused':>7} {'ms/input':>9}"]
    for tool, inputs in sorted(data.items()):
        if tool not in parsers.PARSERS or not inputs:
            continue
        ok = []
        for name, text in inputs:
            try:
                parsers.parse_text(tool, text, name)
            except parsers.ParseError:
                continue
            ok.append((name, text))
        if not ok:
            lines.append(f"{tool:<18} {0:>6} {len(inputs):>7} {'-':>9}")
            continue
        best = float("inf")
        for _ in range(5):
            reps, elapsed = 0, 0.0
            while elapsed < min_seconds or reps < 2:
                t = time.perf_counter()
                for name, text in ok:
                    parsers.parse_text(tool, text, name)
                elapsed += time.perf_counter() - t
                reps += 1
            best = min(best, elapsed / reps)
        lines.append(f"{tool:<18} {len(ok):>6} {len(inputs) - len(ok):>7} "
                     f"{best / len(ok) * 1e3:>9.3f}")
    return lines


#: The view changes timed (what a user clicks in the explore widget), from mysql latency by threads.
EXPLORE_CHANGES = (("metric", "transaction_rate"), ("metric", "latency_mean"),
                   ("parameter", ""), ("parameter", "p_threads"), ("benchmark", "stream"),
                   ("benchmark", "redis"), ("benchmark", "mysql"))


def bench_explore(ibm: Path | None, runs: int) -> list[str]:
    """Time the explore widget's view changes on the authors' tidy data (goal < 0.3 s each)."""
    tidy = ROOT / "data" / "tidy"
    with tempfile.TemporaryDirectory(prefix="bench-explore-") as tmp:
        if not (tidy / "ibm" / "measurements.parquet").exists():
            if ibm is None:
                return ["explore: skipped, no data/tidy/ibm and no authors' tree to ingest"]
            tidy = Path(tmp)
            subprocess.run([str(Path(sys.executable).with_name("overhead")), "ingest-ibm", str(ibm),
                            "--out", str(tidy / "ibm")], check=True, capture_output=True)
        from overhead.explore import Explorer, View

        t = time.perf_counter()
        ex = Explorer(tidy_root=tidy)
        start = ex.resolve(View(source="ibm", benchmark="mysql", metric="latency_mean",
                                parameter="p_threads"))
        ex.figure(start, ex.summary(start))
        opened = time.perf_counter() - t
        times: dict[str, list[float]] = {}
        for _ in range(runs):
            view = start
            for field, value in EXPLORE_CHANGES:
                t = time.perf_counter()
                view = ex.with_choice(view, **{field: value})
                table = ex.summary(view)
                ex.figure(view, table)
                ex.shown(view, table)
                times.setdefault(f"{field}={value or '(none)'}", []).append(time.perf_counter() - t)
    every = [x for xs in times.values() for x in xs]
    out = [f"explore on the authors' data: opened and first view drawn in {opened:.2f} s; "
           f"{len(EXPLORE_CHANGES)} changes x {runs} runs (goal < 0.3 s a change)"]
    out += [f"  {name:<28} {_spread(xs)}" for name, xs in times.items()]
    out.append(f"  {'every change':<28} {_spread(every)}, worst {max(every):.3f} s")
    return out


def main() -> None:
    """Run the benchmarks and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ibm", default="", help="the authors' tree (kvm-docker-comparison)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--min-seconds", type=float, default=0.3)
    ap.add_argument("--campaign-trials", type=int, default=10_000,
                    help="trials of the campaign ingest benchmark (0: leave it out)")
    ap.add_argument("--parsers-only", action="store_true", help="only the parser timings")
    ap.add_argument("--save-inputs", default="", help="pickle the parsers' inputs to this file")
    ap.add_argument("--inputs", default="", help="time the parsers on a saved input set")
    ap.add_argument("--explore-only", action="store_true", help="only the explore view changes")
    args = ap.parse_args()
    ibm = Path(args.ibm) if args.ibm and Path(args.ibm).is_dir() else None
    if args.save_inputs:
        print("\n".join(save_inputs(ibm, Path(args.save_inputs))))
    if args.inputs:
        print(f"parsers on the saved inputs of {args.inputs} (ms per input, best of 5)\n")
        print("\n".join(bench_saved_inputs(Path(args.inputs), args.min_seconds)))
        return
    if args.parsers_only:
        print("\n".join(bench_parsers(ibm, args.min_seconds)))
        return
    if args.explore_only:
        print("\n".join(bench_explore(ibm, args.runs)))
        return
    print("overhead benchmarks (wall-clock; median [min-max])\n")
    if ibm is not None:
        print("\n".join(bench_ingest(ibm, args.runs)))
    else:
        print("ingest-ibm: skipped, the authors' data was not found (make bench IBM_DATA=...)")
    print()
    print("\n".join(bench_parsers(ibm, args.min_seconds)))
    print()
    print("\n".join(bench_explore(ibm, args.runs)))
    if args.campaign_trials:
        print(flush=True)
        subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_campaign_ingest.py"),
                        "--trials", str(args.campaign_trials)], check=True)


if __name__ == "__main__":
    main()
