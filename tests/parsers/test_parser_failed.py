"""The failed-run form for every parser (issue 26): a genuine output of a run that did not
finish and holds no result is :class:`overhead.parsers.RunFailed`, ``path:line: the run did
not finish: <what>``, quoting the tool's own message and naming the line that shows it; the
command line prints that one line and exits 2.

Every file was made with the real tool (the fixture folders' READMEs say how and when): a
refused connection, a bad option or event, a missing file, a run killed. The expected messages
are read off the files: the line named must hold the text quoted (``SHOWN``).

No genuine failed output is here for linpack, stream and gups: their binaries (the authors'
builds) are not on this machine and their fixtures are the authors' logs of finished runs.
fio, ab, netperf, iperf3 (JSON) and redis-benchmark are in ``tests/parsers/test_failed_runs.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from overhead import parsers

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

#: (tool, file, line named, the message after "the run did not finish: ", what that line shows)
CASES = [
    ("vmstat", "vmstat_bad_option.txt", 1, "vmstat: invalid option -- 'Z'", None),
    ("vmstat", "vmstat_p_missing.txt", 1, "vmstat: Disk/Partition nonexistent not found", None),
    ("perf-stat", "perf_stat_missing_command.txt", 1,
     "Workload failed: No such file or directory", None),
    ("perf-stat", "perf_stat_bad_event.txt", 1, "event syntax error: 'no_such_event'", None),
    ("pg_test_fsync", "pg_test_fsync_missing_dir.txt", 3,
     "pg_test_fsync: error: could not open output file: No such file or directory", None),
    ("sysbench", "v1_unknown_test.txt", 3, "FATAL: Cannot find benchmark 'nonexistent': no such "
     "built-in test, file or module", None),
    ("sysbench", "v1_fileio_no_prepare.txt", 16, "FATAL: Cannot open file 'test_file.0' errno = "
     "2 (No such file or directory)", None),
    ("xz", "xz_T2_killed.txt", 1, "'xz -T2 -k -c input.txt': Command terminated by signal 9",
     "Command terminated by signal 9"),
    ("xz", "xz_missing_input.txt", 1, "xz: /nonexistent: No such file or directory ('xz -T2 -k -c "
     "/nonexistent': Command exited with non-zero status 1)",
     "xz: /nonexistent: No such file or directory"),
    ("hdparm", "vda_tT_not_permitted.txt", 1, "/dev/vda: Operation not permitted", None),
    ("hyperfine", "failing_aborted.txt", 2, "hyperfine reported an error and no result: Error: "
     "Command terminated with non-zero exit code: 1. Use the '-i'/'--ignore-failure' option if "
     "you want to ignore this. Alternatively, use the '--show-output' option to debug what went "
     "wrong.", "Command terminated with non-zero exit code: 1"),
    ("nuttcp", "refused.txt", 3, "nuttcp-t: v6.1.2: Error: connect: Connection refused", None),
    ("qperf", "refused_tcp.txt", 2, "127.0.0.1: failed to connect", None),
    ("sockperf", "pp_tcp_refused.txt", 2,
     "sockperf: ERROR: Can`t connect socket (errno=111 Connection refused)", None),
    ("wrk", "refused.txt", 1, "unable to connect to 127.0.0.1:45929 Connection refused", None),
    ("iperf3", "refused.txt", 1, "iperf3: error - unable to connect to server: Connection refused",
     None),
]


def _line(path: Path, n: int) -> str:
    return path.read_bytes().decode().split("\n")[n - 1].strip()


@pytest.mark.parametrize(("tool", "name", "line", "what", "shown"), CASES,
                         ids=[f"{c[0]}/{c[1]}" for c in CASES])
def test_a_failed_run_says_so_with_the_tools_message(tool, name, line, what, shown):
    path = FIXTURES / tool / name
    assert (shown or what) in _line(path, line)  # the message is the file's, on the line named
    text = parsers.read_text(path)
    assert parsers.detect(text) == tool
    with pytest.raises(parsers.RunFailed) as exc:
        parsers.parse_text(tool, text, name)
    assert str(exc.value) == f"{name}:{line}: the run did not finish: {what}"
    r = subprocess.run([sys.executable, "-m", "overhead.cli", "parse", "auto", str(path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [f"{path}: detected {tool}",
                                     f"{path}:{line}: the run did not finish: {what}"]


def test_hpcc_stopped_before_any_result():
    # hpcc without hpccinf.txt, on its defaults (:31 "N      :    2560"), stopped by timeout
    # during HPL: the file ends (:360) with HPL's parameter explanation, no result table, no
    # summary
    path = FIXTURES / "hpcc" / "hpccoutf_no_input_killed.txt"
    assert _line(path, 31).split() == ["N", ":", "2560"]
    assert _line(path, 360).startswith("- Computational tests pass if scaled residuals")
    with pytest.raises(parsers.RunFailed) as exc:
        parsers.parse_file("hpcc", path, name="h.txt")
    assert str(exc.value) == ("h.txt: the run did not finish: HPCC output holds no result (it "
                              "stops before the HPL table and the summary)")


def test_a_finished_run_of_the_same_tools_is_not_failed():
    for tool, good in (("vmstat", "vmstat_1_3.txt"), ("pg_test_fsync", None), ("sysbench", "v1_cpu.txt"),
                       ("perf-stat", None)):
        folder = FIXTURES / tool
        files = [folder / good] if good else [f for f in sorted(folder.glob("*.txt"))
                                              if "fail" not in f.name and "missing" not in f.name
                                              and "bad" not in f.name][:1]
        df = parsers.parse_file(tool, files[0])
        assert len(df) and parsers.cut_short_of(df) is None, files[0]
