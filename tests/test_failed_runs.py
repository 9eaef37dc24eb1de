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

FIXTURES = Path(__file__).resolve().parent / "fixtures"

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
