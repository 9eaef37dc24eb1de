"""Every parser on genuine outputs cut short (issue 26): a capture that ends before the tool's
own closing lines is either a clean error (ParseError/RunFailed naming the input) or rows
marked cut short (:func:`overhead.parsers.cut_short_of`), never a complete run.

For each parser, one genuine output whose whole parse is a finished run (the first in its
fixture folder, or the authors' files for linpack, stream and gups) is cut at six points:
at line boundaries a quarter, half and three quarters of the way through and just before its
last non-blank line, and in the middle of its middle line and of its last non-blank line (a
capture that stopped mid-write). :data:`EXTRA` adds more genuine outputs of the forms whose
cuts were once taken as complete (issue 45: hyperfine's terminal output with its Summary,
netperf -k and -v 2, perf stat -j, qperf -v, redis-benchmark -q), cut the same way.
``test_cut_summary`` prints the count of outcomes.

Parsers listed in :data:`LEFT` do not yet tell every cut from a finished run: their cases are
expected to fail (``xfail(strict=True)``), so the test fails as soon as one is fixed and the
entry must be removed.
"""

from __future__ import annotations

import re
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


def _last_filled(text: str) -> str:
    return next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")


#: Outputs of a run with fewer selectors, events or options: netperf -k prints one line per
#: selector of its list and nothing after, so a cut between two is the whole output of a run
#: whose list stopped there (only a command line or ``columns`` tells them apart); a netperf
#: cut before its -v 2 block begins is the whole output of the same run without -v 2; perf
#: stat -x/-j with fewer than the first three of perf's default events is what ``-e`` with
#: those events prints. Such a cut may parse as complete, at a line boundary and with exactly
#: the whole file's rows for the lines kept (docs/parser-outcomes.md).
SHORTER_RUN = {
    "netperf": lambda kept, full: bool(re.match(r"[A-Z][A-Z0-9_]*=\S", _last_filled(kept))) or (
        re.search(r"^Alignment", full, re.M) is not None
        and re.search(r"^Alignment", kept, re.M) is None),
    "perf-stat": lambda kept, full: len([ln for ln in kept.splitlines() if ln.strip()]) < 3,
}

#: More genuine outputs cut at the same six points (issue 45): the forms whose cuts were
#: taken as complete runs before (tool, fixture).
EXTRA = [
    ("hyperfine", "three_commands_default_style.txt"), ("hyperfine", "basic_two_N.txt"),
    ("hyperfine", "export_sleep_true.txt"), ("hyperfine", "sleep_scan.txt"),
    ("hyperfine", "failing_ignored.txt"),
    ("netperf", "keyval_udp_rr.txt"), ("netperf", "keyval_tcp_stream.txt"),
    ("netperf", "omni_tcp_rr_keyval.txt"), ("netperf", "omni_tcp_stream_cpu_keyval.txt"),
    ("netperf", "v2_tcp_rr.txt"), ("netperf", "v2_tcp_stream.txt"), ("netperf", "v2_tcp_maerts.txt"),
    ("netperf", "v2_tcp_rr_cpu.txt"), ("netperf", "v2_tcp_crr.txt"),
    ("netperf", "v2_tcp_stream_cpu.txt"), ("netperf", "sh_x_p0_tcp_rr_v2.txt"),
    ("perf-stat", "json_sleep.txt"), ("perf-stat", "json_sleep_r3.txt"),
    ("perf-stat", "gzip_json.txt"), ("perf-stat", "gzip_json_r3.txt"),
    ("qperf", "v_tcp_bw_lat.txt"), ("qperf", "v_udp_lat.txt"), ("qperf", "lat_bw_v.txt"),
    ("qperf", "udp_m1400_v.txt"),
    ("redis-benchmark", "quiet_c10_n5000.txt"), ("redis-benchmark", "quiet_c20.txt"),
    ("redis-benchmark", "quiet_c20_P16.txt"),
]


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
    if full is None or not _whole_prefix(tool, text, full, df):
        return "complete"
    # the rows of a shorter complete run: told apart from the whole run by nothing in it
    if tool in WHOLE_RUNS or text.strip() == full.strip() or (
            tool in SHORTER_RUN and SHORTER_RUN[tool](text, full)):
        return "whole"
    return "complete"


def _whole_prefix(tool: str, kept: str, full: str, df) -> bool:
    """The cut ends at a line boundary (or drops only the final line end of a JSON document)
    and its rows are exactly the whole file's rows from the lines kept (also: a cut that
    drops nothing but the blank lines at the end). Values the cut's parse names in a note as
    not kept (a netperf -k LOCAL_SD whose SD_UNITS line is not in the cut) may be missing."""
    n = len(kept.splitlines())
    if not (kept.endswith("\n") or full.rstrip("\n") == kept):
        return False
    whole = parsers.parse_text(tool, full, "cut")
    line = whole["source"].str.rsplit(":", n=1).str[1].astype(int)
    cols = ["source", "metric", "value"]
    same = whole.loc[line <= n, cols].astype(str).sort_values(cols).reset_index(drop=True)
    got = df[cols].astype(str).sort_values(cols).reset_index(drop=True)
    if parsers.notes_of(df):
        return set(map(tuple, got.to_numpy())) <= set(map(tuple, same.to_numpy()))
    return same.equals(got)


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


@pytest.mark.parametrize(("tool", "name"), EXTRA, ids=[f"{t}-{n}" for t, n in EXTRA])
def test_no_cut_of_more_forms_is_a_complete_run(tool, name):
    text = parsers.read_text(FIXTURES / tool / name)
    whole = parsers.parse_text(tool, text, name)
    assert len(whole) and parsers.cut_short_of(whole) is None, "not a finished run"
    complete = [label for label, kept in cut_points(text) if outcome(tool, kept, text) == "complete"]
    assert not complete, f"{tool} {name}: cuts taken as complete runs: {complete}"


_LETTER = {"error": "E", "cut short": "S", "whole": "W", "complete": "C"}


def test_cut_summary(chosen, capsys):
    """Count (output x cut point) outcomes; every parser not in LEFT has no complete one."""
    counts = {"error": 0, "cut short": 0, "whole": 0, "complete": 0}
    per_tool = {}
    for tool, picked in chosen.items():
        assert picked is not None, tool
        got = [outcome(tool, kept, picked[1]) for _, kept in cut_points(picked[1])]
        per_tool[tool] = got
        for o in got:
            counts[o] += 1
    more = {}
    for tool, name in EXTRA:
        text = parsers.read_text(FIXTURES / tool / name)
        more[(tool, name)] = got = [outcome(tool, kept, text) for _, kept in cut_points(text)]
        for o in got:
            counts[o] += 1
    n = sum(counts.values())
    fixed = {t: g for t, g in per_tool.items() if t not in LEFT}
    with capsys.disabled():
        print(f"\ncuts: {len(per_tool)} parsers x 6 points + {len(EXTRA)} more outputs x 6 = "
              f"{n} cases: {counts['error']} clean errors, {counts['cut short']} cut short, "
              f"{counts['whole']} whole shorter runs (line boundaries of WHOLE_RUNS and "
              f"SHORTER_RUN), {counts['complete']} complete")
        print(f"  of which parsers with a closing-section check ({len(fixed)}): "
              f"{sum(len(g) for g in fixed.values())} cases, "
              f"{sum(g.count('complete') for g in fixed.values())} complete")
        for tool, got in per_tool.items():
            print(f"  {tool:<18} {chosen[tool][0]:<45} " + " ".join(_LETTER[o] for o in got))
        for (tool, name), got in more.items():
            print(f"  {tool:<18} {name:<45} " + " ".join(_LETTER[o] for o in got))
    assert all("complete" not in g for g in fixed.values())
    assert all("complete" not in g for g in more.values())
    # the parsers left each have at least one complete cut (else remove them from LEFT)
    assert all("complete" in per_tool[t] for t in LEFT)
