"""Failed runs never vanish (issue 13): a tool that ran and failed gives a clear message and a
failed run in the provenance, never "0 rows, exit 0" and never a dropped file.

Each failed output here was made on this machine by really making the tool fail (the fixture
READMEs say how): fio on a full 8 MiB tmpfs, ab against a server killed mid-run, netperf and
iperf3 with no server listening, redis-benchmark against a server killed mid-run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from overhead import parsers
from overhead.ingest import Rule, RuleSet, ingest, run_id

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

#: tool -> (a good output, a failed output, its line that shows the failure, what it says)
CASES = {
    "fio": ("randrw-libaio.jsonplus-normal.txt", "enospc.normal.txt", 8,
            "w: (groupid=0, jobs=1): err=28 (file:io_u.c:1876, func=io_u error, "
            "error=No space left on device)"),
    "ab": ("n200_c4.txt", "killed_n20000_c4.txt", 6,
           "apr_socket_recv: Connection reset by peer (104); Total of 1504 requests completed"),
    "netperf": ("tcp_rr.txt", "refused.txt", 1,
                "establish control: are you sure there is a netserver listening on 127.0.0.1 "
                "at port 12899?"),
    "iperf3": ("tcp.json", "refused.json", 10, "unable to connect to server: Connection refused"),
    "redis-benchmark": ("default_set_get_c50.txt", "killed_set.txt", 1,
                        "redis-benchmark printed 'Error: Connection reset by peer' before any "
                        "test finished"),
}

#: what each failed output prints on the line named
SHOWN = {"fio": "err=28", "ab": "Connection reset by peer (104)", "netperf": "establish control",
         "iperf3": '"error":\t"unable to connect to server: Connection refused"',
         "redis-benchmark": "Error: Connection reset by peer"}


@pytest.mark.parametrize("tool", sorted(CASES))
def test_the_command_line_says_the_run_did_not_finish(tool):
    _, failed, line, what = CASES[tool]
    path = FIXTURES / tool / failed
    r = subprocess.run([sys.executable, "-m", "overhead.cli", "parse", "auto", str(path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    said = r.stderr.strip().splitlines()
    assert said[0] == f"{path}: detected {tool}"  # still the tool's output, recognized as such
    assert said[1].startswith(f"{path}:{line}: the run did not finish: {what}"), said[1]
    # the line named is the one that shows the failure (lines end at \n; progress uses \r)
    assert SHOWN[tool] in path.read_bytes().decode().split("\n")[line - 1]


@pytest.mark.parametrize("tool", sorted(CASES))
def test_the_parser_raises_run_failed(tool):
    _, failed, line, what = CASES[tool]
    with pytest.raises(parsers.RunFailed) as info:
        parsers.parse_file(tool, FIXTURES / tool / failed, name=failed)
    assert info.value.line == line and info.value.what.startswith(what)
    assert str(info.value).startswith(f"{failed}:{line}: the run did not finish: ")


def _context(rel: str) -> dict:
    return {"environment": rel.split("/")[0], "trial": 1}


RULES = RuleSet(
    campaign="failures",
    rules=tuple(Rule(f"*/{tool}/*", tool, f"{tool} output", benchmark=tool, context=_context)
                for tool in CASES),
)


@pytest.fixture
def tree(tmp_path) -> Path:
    """native ran every tool fine; docker's runs of every tool failed."""
    root = tmp_path / "raw"
    for tool, (good, failed, _, _) in CASES.items():
        for env, name in (("native", good), ("docker", failed)):
            (root / env / tool).mkdir(parents=True)
            shutil.copy(FIXTURES / tool / name, root / env / tool / name)
    return root


def test_ingest_records_failed_runs_in_the_provenance(tree, tmp_path):
    out = tmp_path / "tidy"
    result = ingest(tree, out, RULES, workers=1)
    prov = pd.read_parquet(out / "provenance.parquet")
    rows = pd.read_parquet(out / "measurements.parquet")
    # every file is a run: the five good ones done, the five failed ones failed
    assert len(prov) == 10 and prov["run_id"].is_unique
    by_file = prov.set_index("source_file")
    for tool, (good, failed, line, what) in CASES.items():
        bad = f"docker/{tool}/{failed}"
        assert by_file.loc[bad, "status"] == "failed"
        assert by_file.loc[bad, "failure"].startswith(f"{bad}:{line}: the run did not finish: {what}")
        assert by_file.loc[bad, "environment"] == "docker" and by_file.loc[bad, "tool"] == tool
        assert len(by_file.loc[bad, "source_sha256"]) == 64
        assert by_file.loc[f"native/{tool}/{good}", "status"] == "done"
        assert pd.isna(by_file.loc[f"native/{tool}/{good}", "failure"])
        # the failed run has no measurement rows; the good one all of its own
        assert not (rows["run_id"] == run_id(bad, "failures")).any()
        assert (rows["benchmark"] == tool).any()
    assert set(rows["environment"]) == {"native"}
    assert sorted(result.failed) == sorted(f"docker/{t}/{c[1]}" for t, c in CASES.items())
    assert "FAILED 5 runs" in result.describe()
    # a re-run finds nothing changed and still says which runs failed
    again = ingest(tree, out, RULES, workers=1)
    assert again.unchanged and again.failed == result.failed
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["result"]["failed"] == result.failed


def test_a_comparison_shows_the_failed_environment(tree, tmp_path):
    """What a notebook sees: per environment and tool, runs done and failed, with the message,
    so the docker column is "failed", not missing."""
    out = tmp_path / "tidy"
    ingest(tree, out, RULES, workers=1)
    prov = pd.read_parquet(out / "provenance.parquet")
    table = prov.pivot_table(index="tool", columns="environment", values="status",
                             aggfunc="first")
    assert (table["docker"] == "failed").all() and (table["native"] == "done").all()
    assert sorted(table.index) == sorted(CASES)


#: tool -> (an output whose run failed after complete results, the line that shows the failure,
#: what it says, the results kept (p_test or metric values)); each made here for real (READMEs)
CUT_SHORT = {
    # PING_INLINE finished (:81 "throughput summary: 45934.77 requests per second"); the
    # server was killed during SET: :85 "...\rError: Connection reset by peer"
    "redis-benchmark": ("killed_after_ping.txt", 85,
                        "redis-benchmark printed 'Error: Connection reset by peer'; the tests "
                        "that finished are kept: PING_INLINE", {"PING_INLINE"}),
    # :2 "    latency  =  8.74 us" (tcp_lat), then :4 "failed to receive port: Connection
    # reset by peer" (tcp_bw's server killed)
    "qperf": ("killed_after_first.txt", 4, "failed to receive port: Connection reset by peer; "
              "the tests before it are kept: tcp_lat", {"tcp_lat"}),
    # three tests with their PASSED checks, then mpiexec's Ctrl-C and :78 "BAD TERMINATION ..."
    "hpl": ("hpl23_three_tests_interrupted.out", 78,
            "HPL stopped after 3 finished tests, which are kept: "
            "'=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES'", None),
    # SIGINT 1.6 s into a 5 s run: :148 '"error":	"interrupt - the client has terminated"'
    "iperf3": ("interrupted.json", 148,
               "interrupt - the client has terminated; after a summary, which is kept; the "
               "receiver summary and the remote CPU never came from the server (iperf3 prints "
               "0): left out", None),
}


@pytest.mark.parametrize("tool", sorted(CUT_SHORT))
def test_a_run_cut_short_keeps_its_results_and_says_so(tool):
    name, line, what, tests = CUT_SHORT[tool]
    path = FIXTURES / tool / name
    df = parsers.parse_file(tool, path, name=name)
    assert parsers.cut_short_of(df) == f"{name}:{line}: the run was cut short: {what}"
    if tests is not None:
        assert set(df["p_test"]) == tests
    # no kept row comes from the failure's line or after it
    assert df["source"].str.rsplit(":", n=1).str[1].astype(int).max() < line
    # the line named shows the failure (lines end at \n; progress uses \r)
    shown = path.read_bytes().decode().split("\n")[line - 1]
    assert ("rror" in shown or "failed" in shown or "TERMINATION" in shown), shown
    # the command line prints the rows and the failure (exit 0: the rows are results)
    r = subprocess.run([sys.executable, "-m", "overhead.cli", "parse", tool, str(path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == len(df)
    assert r.stderr.strip() == f"{path}:{line}: the run was cut short: {what} (the rows read follow)"
    # a finished run of the same tool says nothing of the kind
    good = {"redis-benchmark": "default_set_get_c50.txt", "qperf": "lat_bw_v.txt",
            "hpl": "hpl21_asc_report.out", "iperf3": "tcp.json"}[tool]
    assert parsers.cut_short_of(parsers.parse_file(tool, FIXTURES / tool / good)) is None


def test_an_error_reply_printed_before_the_report_still_cuts_the_run_short():
    # redis-benchmark against a server with maxmemory 1: PING_INLINE finishes, SET's first
    # reply is an OOM error, redis-benchmark exits 1. Standard error is unbuffered, so the error
    # (after the last \r of line 1) comes before the buffered PING_INLINE report (lines 2-44).
    path = FIXTURES / "redis-benchmark" / "oom_set.txt"
    df = parsers.parse_file("redis-benchmark", path, name="oom_set.txt")
    assert set(df["p_test"]) == {"PING_INLINE"}
    # :41 "  throughput summary: 11976.05 requests per second"
    assert df.loc[df["metric"] == "throughput", "value"].tolist() == [11976.05]
    assert parsers.cut_short_of(df) == (
        "oom_set.txt:1: the run was cut short: redis-benchmark printed \"Error from server: OOM "
        "command not allowed when used memory > 'maxmemory'.\"; the tests that finished are "
        "kept: PING_INLINE")


def test_ingest_records_runs_cut_short_as_partial(tmp_path):
    root = tmp_path / "raw"
    for tool, (name, *_rest) in CUT_SHORT.items():
        (root / "docker" / tool).mkdir(parents=True)
        shutil.copy(FIXTURES / tool / name, root / "docker" / tool / name)
    rules = RuleSet(campaign="cut", rules=tuple(
        Rule(f"*/{tool}/*", tool, f"{tool} output", benchmark=tool, context=_context)
        for tool in CUT_SHORT))
    out = tmp_path / "tidy"
    result = ingest(root, out, rules, workers=1)
    prov = pd.read_parquet(out / "provenance.parquet").set_index("source_file")
    rows = pd.read_parquet(out / "measurements.parquet")
    for tool, (name, line, what, _) in CUT_SHORT.items():
        rel = f"docker/{tool}/{name}"
        assert prov.loc[rel, "status"] == "partial"
        assert prov.loc[rel, "failure"] == f"{rel}:{line}: the run was cut short: {what}"
        kept = rows[rows["run_id"] == run_id(rel, "cut")]
        assert len(kept) == len(parsers.parse_file(tool, FIXTURES / tool / name))
    assert not result.failed and sorted(result.partial) == sorted(
        f"docker/{t}/{c[0]}" for t, c in CUT_SHORT.items())
    assert "PARTIAL 4 runs" in result.describe()
    again = ingest(root, out, rules, workers=1)
    assert again.unchanged and again.partial == result.partial
