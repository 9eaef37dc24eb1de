"""The `overhead` command line: parse to JSON lines, auto-detection, errors without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from overhead import parsers

OVERHEAD = [sys.executable, "-m", "overhead.cli"]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*OVERHEAD, *args], capture_output=True, text=True)


def test_parse_prints_json_lines_with_tidy_fields(ibm):
    path = ibm / "linpack/results/linux.two-socket.interleavedalloc.log"
    r = run("parse", "linpack", str(path))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    # 10 trials x (flop_rate, solve_time, residual, residual_norm), and the Performance
    # Summary's average and maximal GFlops for the one size
    assert len(rows) == 42
    summary = {r["metric"]: r["value"] for r in rows if "trial" not in r or r["trial"] is None}
    # "45000  45000  1       290.8286 292.3367"
    assert summary == pytest.approx({"flop_rate_mean": 290.8286e9, "flop_rate_max": 292.3367e9})
    first = rows[0]
    for field in ("benchmark", "tool", "metric", "value", "unit", "higher_is_better", "source", "raw", "trial"):
        assert field in first
    assert first["metric"] == "flop_rate" and first["value"] == pytest.approx(291.5018e9)
    assert first["p_problem_size"] == 45000 and first["source"].endswith(":28")
    assert all(not k.startswith("p_") or v is not None for k, v in first.items())


def test_unknown_tool_lists_the_known_ones(tmp_path):
    f = tmp_path / "x.txt"
    f.write_text("hello\n")
    r = run("parse", "nosuch", str(f))
    assert r.returncode == 2
    assert "unknown tool 'nosuch'" in r.stderr and "sysbench" in r.stderr and "fio" in r.stderr


@pytest.mark.parametrize("content", ["", "not a benchmark output\n", "\x00\x01binary"])
def test_wrong_or_empty_file_is_exit_2_without_traceback(tmp_path, content):
    f = tmp_path / "bad.txt"
    f.write_text(content)
    for tool in ("fio", "sysbench", "redis-benchmark", "linpack"):
        r = run("parse", tool, str(f))
        assert r.returncode == 2, (tool, r.stdout)
        assert r.stderr.startswith(f"{f}:") and "Traceback" not in r.stderr


def test_missing_file(tmp_path):
    r = run("parse", "fio", str(tmp_path / "nope.txt"))
    assert r.returncode == 2 and "no such file" in r.stderr


def test_truncated_file_names_the_line(ibm, tmp_path):
    text = (ibm / "linpack/results/vm.log").read_text().splitlines(keepends=True)
    text[67] = "45000  45000  1      457.807    1x2.7067 1.891121e-09 3.327228e-02   pass\n"
    f = tmp_path / "vm.log"
    f.write_text("".join(text[:70]))
    r = run("parse", "linpack", str(f))
    assert r.returncode == 2 and r.stderr.strip() == f"{f}:68: malformed LINPACK result line: " \
        "'45000  45000  1      457.807    1x2.7067 1.891121e-09 3.327228e-02   pass'"


def _fixture_files():
    """Every genuine output fixture of every tool, failed runs included (broken ones excluded)."""
    for tool in sorted(parsers.PARSERS):
        folder = FIXTURES / tool
        if not folder.is_dir():
            continue
        for f in sorted(folder.rglob("*")):
            if f.is_file() and f.name != "README.md" and "input" not in f.parts and not f.name.endswith(".sh"):
                try:
                    parsers.parse_file(tool, f)
                except parsers.RunFailed:
                    pass  # a failed run is still the tool's output: detection must say so
                except parsers.ParseError:
                    continue  # a deliberately broken output (error-case fixture)
                yield tool, f


FIXTURE_FILES = list(_fixture_files())


def test_every_registered_tool_has_fixtures_or_ibm_data():
    have = {tool for tool, _ in FIXTURE_FILES}
    # linpack, stream, gups are tested on the authors' files only
    assert set(parsers.PARSERS) - have <= {"linpack", "stream", "gups"}


@pytest.mark.parametrize(("tool", "path"), FIXTURE_FILES, ids=[f"{t}/{p.name}" for t, p in FIXTURE_FILES])
def test_auto_detection_picks_the_tool(tool, path):
    assert parsers.detect(parsers.read_text(path)) == tool


@pytest.mark.parametrize("rel", [
    "linpack/results/vm.log", "Stream/results/linux.two-socket.interleavedalloc.log",
    "RandomAccess/results/linux.log", "fio/results/vm.log",
    "redis/results/run_native_20140716_2211.txt",
    "mysql/results/performance-governor/bml/records-20140702111751-0",
    "mysql/results/performance-governor/bml/dstat-run-2000000-bml.csv"])
def test_auto_detection_on_the_authors_files(ibm, rel):
    expected = {"linpack": "linpack", "Stream": "stream", "RandomAccess": "gups", "fio": "fio",
                "redis": "redis-benchmark", "mysql": "sysbench"}[rel.split("/")[0]]
    if rel.endswith(".csv"):
        expected = "dstat"
    r = run("parse", "auto", str(ibm / rel))
    assert r.returncode == 0, r.stderr
    said = [f"{ibm / rel}: detected {expected}"]
    if rel in _AUTHORS_CUT:
        said.append(f"{ibm / rel}:{_AUTHORS_CUT[rel]} (the rows read follow)")
    assert r.stderr.strip().splitlines() == said
    assert r.stdout.count("\n") > 0


#: The authors' files that hold a run stopped before its end (issue 26): vm.log:91 "Running
#: linpack, started at Tue Aug 19 14:47:09 CDT 2014" is followed at :93 by the next "Running
#: linpack" line with no output and no "Done:" between them.
_AUTHORS_CUT = {"linpack/results/vm.log": "91: the run was cut short: block 3 (from this line) "
                "ends before the wrapper's closing 'Done:' line: the trials read are kept"}


def test_auto_detection_refuses_unknown_text(tmp_path):
    f = tmp_path / "x.txt"
    f.write_text("just some words\nnothing measured here\n")
    r = run("parse", "auto", str(f))
    assert r.returncode == 2 and "no known tool" in r.stderr


@pytest.mark.parametrize("args", [("parse",), ("parse", "auto"), ("parse", "fio"),
                                  ("parse", "--bogus", "fio", "x.txt"), ("plan",)])
def test_a_usage_error_is_one_line_and_exit_2(args):
    # like every other user error: no five-line usage panel, no traceback
    r = run(*args)
    assert r.returncode == 2 and r.stdout == ""
    said = r.stderr.splitlines()
    assert len(said) == 1, r.stderr
    assert said[0].startswith(f"python -m overhead.cli {args[0]}: ")
    assert ("Missing argument" in said[0]) or ("No such option: --bogus" in said[0])
    assert said[0].endswith(f"(see 'python -m overhead.cli {args[0]} --help')")


def test_help_still_prints_the_usage():
    r = run("parse", "--help")
    assert r.returncode == 0 and "TOOL" in r.stdout.upper() and r.stderr == ""
