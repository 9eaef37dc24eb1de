"""Every parser on genuine outputs cut short (issue 26): a capture that ends before the tool's
own closing lines is either a clean error (ParseError/RunFailed naming the input) or rows
marked cut short (:func:`overhead.parsers.cut_short_of`), never a complete run.

For each parser, one genuine output whose whole parse is a finished run (the first in its
fixture folder, or the authors' files for linpack, stream and gups) is cut at six points:
at line boundaries a quarter, half and three quarters of the way through and just before its
last non-blank line, and in the middle of its middle line and of its last non-blank line (a
capture that stopped mid-write). ``test_cut_summary`` prints the count of outcomes.

Parsers listed in :data:`LEFT` do not yet tell every cut from a finished run: their cases are
expected to fail (``xfail(strict=True)``), so the test fails as soon as one is fixed and the
entry must be removed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from overhead import parsers

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

#: Parsers whose every cut is not yet a clean error or cut short, and why (issue 26, left).
LEFT: dict[str, str] = {}  # none left (netperf's omni -O all now checks its command line)

#: Outputs that are a series of whole results with nothing after the last one: a monitor's
#: samples (no closing section: vmstat, dstat and iostat stop silently at their count, when
#: killed and at SIGINT alike), a wrapper's loop of runs (the authors' STREAM, GUPS and LINPACK
#: logs), the tests named on a command line (qperf, redis-benchmark --csv, hdparm -T/-t) and
#: one JSON document (hyperfine: a cut that keeps the whole document and drops only the final
#: line end). A cut at the line boundary after a whole result is the complete output of a
#: shorter run and cannot be told from one; it may parse as complete, but only at a line
#: boundary and only with exactly the rows the whole file gives for those lines (the rule is in
#: docs/parser-outcomes.md). Every other cut of theirs must be an error or cut short.
WHOLE_RUNS = {"vmstat", "dstat", "iostat", "gups", "stream", "linpack", "qperf",
              "redis-benchmark", "hdparm", "hyperfine"}


def _ibm_inputs(tool: str) -> list[tuple[str, str]]:
    """The authors' files for ``tool`` (linpack, stream, gups have no fixture folder)."""
    from conftest import IBM

    if not IBM or not Path(IBM).is_dir():
        return []
    from overhead.ingest import plan
    from overhead.rc25482 import RULESET

    files, _, _ = plan(Path(IBM), RULESET)
    return [(rel, (Path(IBM) / rel).read_text()) for rel, rule in sorted(files.items())
            if rule.tool == tool][:5]


#: The output cut, where the first fixture is not a typical single run (a 3-line CSV, a
#: terminal log of four runs, a failed run's neighbour).
PICK = {"ab": "n200_c4.txt", "fio": "numjobs2.normal.txt", "iperf3": "tcp.txt",
        "memtier_benchmark": "c5_t2_n2000.txt", "netperf": "omni_tcp_rr_human_all.txt",
        "nuttcp": "rx_interval_parse.txt", "qperf": "lat_bw_v.txt", "sysbench": "v1_cpu.txt",
        "wrk": "t2_c10_d2.txt", "hyperfine": "export_scan.json",
        "perf-stat": "amd_frontend_stalled_per_insn_598ape_hw3.txt"}


def _genuine_finished(tool: str) -> tuple[str, str] | None:
    """The genuine output of ``tool`` to cut (PICK, else the first whose whole parse is a
    finished run with rows)."""
    folder = FIXTURES / tool
    if tool in PICK:
        return PICK[tool], parsers.read_text(folder / PICK[tool])
    candidates = []
    if folder.is_dir():
        for f in sorted(folder.iterdir()):
            if f.is_file() and f.suffix in (".txt", ".json", ".csv", ".out", ".log", ".tsv") \
                    and ".bom." not in f.name and "utf16" not in f.name:
                candidates.append((f.name, parsers.read_text(f)))
    candidates += _ibm_inputs(tool)
    for name, text in candidates:
        try:
            df = parsers.parse_text(tool, text, name)
        except parsers.ParseError:
            continue
        if len(df) and parsers.cut_short_of(df) is None:
            return name, text
    return None


def cut_points(text: str) -> list[tuple[str, str]]:
    """Six cuts of ``text``: (label, the text kept)."""
    lines = text.splitlines(keepends=True)
    n = len(lines)
    filled = [i for i, line in enumerate(lines) if line.strip()]
    out = []
    for label, k in (("line 1/4", n // 4), ("line 1/2", n // 2), ("line 3/4", 3 * n // 4),
                     ("before last line", filled[-1])):
        out.append((f"{label} ({k} of {n} lines)", "".join(lines[:k])))
    for label, i in (("mid middle line", filled[len(filled) // 2]), ("mid last line", filled[-1])):
        start = sum(len(x) for x in lines[:i])
        half = max(1, len(lines[i].rstrip("\r\n")) // 2)
        out.append((f"{label} ({i + 1})", text[:start + half]))
    return out


def outcome(tool: str, text: str, full: str | None = None) -> str:
    """'error', 'cut short', 'whole' (a shorter complete run, see WHOLE_RUNS) or 'complete'
    for one cut; ``full`` is the whole output the cut was taken from."""
    try:
        df = parsers.parse_text(tool, text, "cut")
    except parsers.ParseError as exc:
        assert exc.path in ("cut", "<input>"), str(exc)
        return "error"
    if parsers.cut_short_of(df):
        return "cut short"
    if tool in WHOLE_RUNS and full is not None and _whole_prefix(tool, text, full, df):
        return "whole"
    return "complete"


def _whole_prefix(tool: str, kept: str, full: str, df) -> bool:
    """The cut ends at a line boundary (or drops only the final line end of a JSON document)
    and its rows are exactly the whole file's rows from the lines kept."""
    n = len(kept.splitlines())
    if not (kept.endswith("\n") or full.rstrip("\n") == kept):
        return False
    whole = parsers.parse_text(tool, full, "cut")
    line = whole["source"].str.rsplit(":", n=1).str[1].astype(int)
    cols = ["source", "metric", "value"]
    same = whole.loc[line <= n, cols].astype(str).sort_values(cols).reset_index(drop=True)
    return same.equals(df[cols].astype(str).sort_values(cols).reset_index(drop=True))


def _cases() -> list:
    return [_case(tool) for tool in sorted(parsers.PARSERS)]


def _case(tool: str):
    """One parser's case, expected to fail (strictly) while the parser is in LEFT."""
    marks = [pytest.mark.xfail(strict=True, reason=LEFT[tool])] if tool in LEFT else []
    return pytest.param(tool, marks=marks, id=tool)


@pytest.fixture(scope="module")
def chosen() -> dict:
    return {tool: _genuine_finished(tool) for tool in sorted(parsers.PARSERS)}


@pytest.mark.parametrize("tool", _cases())
def test_no_cut_is_a_complete_run(chosen, tool):
    picked = chosen[tool]
    assert picked is not None, f"no genuine finished output of {tool} to cut"
    name, text = picked
    complete = [label for label, kept in cut_points(text) if outcome(tool, kept, text) == "complete"]
    assert not complete, f"{tool} {name}: cuts taken as complete runs: {complete}"


def test_cut_summary(chosen, capsys):
    """Count (parser x cut point) outcomes; every parser not in LEFT has no complete one."""
    counts = {"error": 0, "cut short": 0, "whole": 0, "complete": 0}
    per_tool = {}
    for tool, picked in chosen.items():
        assert picked is not None, tool
        got = [outcome(tool, kept, picked[1]) for _, kept in cut_points(picked[1])]
        per_tool[tool] = got
        for o in got:
            counts[o] += 1
    n = sum(counts.values())
    fixed = {t: g for t, g in per_tool.items() if t not in LEFT}
    with capsys.disabled():
        print(f"\ncuts: {len(per_tool)} parsers x 6 points = {n} cases: {counts['error']} clean "
              f"errors, {counts['cut short']} cut short, {counts['whole']} whole shorter runs "
              f"(line boundaries of WHOLE_RUNS), {counts['complete']} complete")
        print(f"  of which parsers with a closing-section check ({len(fixed)}): "
              f"{sum(len(g) for g in fixed.values())} cases, "
              f"{sum(g.count('complete') for g in fixed.values())} complete")
        for tool, got in per_tool.items():
            print(f"  {tool:<18} {chosen[tool][0]:<45} " + " ".join(
                {"error": "E", "cut short": "S", "whole": "W", "complete": "C"}[o] for o in got))
    assert all("complete" not in g for g in fixed.values())
    # the parsers left each have at least one complete cut (else remove them from LEFT)
    assert all("complete" in per_tool[t] for t in LEFT)
