"""data/reference/{startup,fsync,sysbench_suite}.csv against the seed texts they were read from.

Every row names a line of a seed text (``seeds/<file>:<line>``) and quotes it: the quote must be
on that line, and the value must be the number the quote prints, in the field the metric names
(hyperfine's mean and σ, a pg_test_fsync label's ops/sec, an iostat column, a sysbench field),
in the section of the text that the env names. The seeds are read in place, in ``seeds/``
beside the reference folder (``../shared/seeds`` next to the checkout); a missing seed fails
the test, as everywhere in this suite (see tests/conftest.py).
"""

from __future__ import annotations

import copy
import csv
import functools
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import REFERENCE, ROOT, _require

from overhead import reference

COLUMNS = ["item", "metric", "env", "value", "err", "err_kind", "unit", "n", "source", "status",
           "note", "quote"]
STUDIES = {  # study: (seed file, number of rows)
    "startup": ("001_fe65e62f3c453053.txt", 69),
    "fsync": ("002_00000324e4c09474.txt", 193),
    "sysbench_suite": ("004_ebce3edf54acc11d.txt", 324),
}
STATUSES = {"SEED-TEXT", "SEED-DERIVED"}
SOURCE = re.compile(r"^seeds/(?P<file>[0-9]{3}_[0-9a-f]{16}\.txt):(?P<line>[1-9][0-9]*)$")
PLAIN = re.compile(r"^-?[0-9]+(?:\.[0-9]+)?$")  # a number as printed, no thousands separators
FRACTION = re.compile(r"^[0-9]+(?:\.[0-9]+)?[/:][0-9]+(?:\.[0-9]+)?$")  # "1/3", "1:5"
# Numbers in a quote: "-40" only where the minus starts a word ("1.5%-2%" holds 1.5 and 2).
NUMBER = re.compile(r"(?:(?<![^\s(])-)?(?<![\d.])\d+(?:\.\d+)?(?:[/:]\d+(?:\.\d+)?)?")


def _seed_dir() -> Path:
    for d in (REFERENCE.parent / "seeds", ROOT.parent / "shared" / "seeds"):
        if d.is_dir():
            return d
    return ROOT.parent / "shared" / "seeds"


@functools.cache
def _seed_lines(name: str) -> tuple[str, ...]:
    return tuple((_seed_dir() / name).read_text(encoding="utf-8").split("\n"))


@pytest.fixture(scope="module", params=sorted(STUDIES))
def study(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def seed(study) -> tuple[str, ...]:
    path = _seed_dir() / STUDIES[study][0]
    _require(path, f"the seed text of {study}")
    return _seed_lines(STUDIES[study][0])


def _rows(study: str) -> list[dict[str, str]]:
    path = ROOT / "data" / "reference" / f"{study}.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == COLUMNS, f"{path}: columns {reader.fieldnames}"
        return list(reader)


@pytest.fixture(scope="module")
def rows(study) -> list[dict[str, str]]:
    return _rows(study)


def _where(r: dict[str, str]) -> str:
    return f"({r['item']!r}, {r['metric']!r}, {r['env']!r}) {r['source']}"


def _line_no(r: dict[str, str]) -> int:
    return int(r["source"].rpartition(":")[2])


# --- the files themselves --------------------------------------------------------------------


def test_file_is_well_formed(study, rows):
    problems, keys = [], set()
    for i, r in enumerate(rows, start=2):
        where = f"line {i} {_where(r)}"
        key = (r["item"], r["metric"], r["env"])
        if key in keys:
            problems.append(f"{where}: duplicate (item, metric, env)")
        keys.add(key)
        if any(v != v.strip() for v in r.values()):
            problems.append(f"{where}: a cell has leading or trailing spaces")
        for col in ("item", "metric", "env", "value", "unit", "source", "quote", "note"):
            if not r[col]:
                problems.append(f"{where}: empty {col}")
        if r["status"] not in STATUSES:
            problems.append(f"{where}: unknown status {r['status']!r}")
        m = SOURCE.match(r["source"])
        if not m or m["file"] != STUDIES[study][0]:
            problems.append(f"{where}: source is not seeds/{STUDIES[study][0]}:<line>")
        if not (PLAIN.match(r["value"]) or (r["status"] == "SEED-DERIVED" and FRACTION.match(r["value"]))):
            problems.append(f"{where}: value {r['value']!r} is not a number as printed")
        if r["err"] and (not PLAIN.match(r["err"]) or not r["err_kind"]):
            problems.append(f"{where}: err {r['err']!r} is not a number with an err_kind")
        if r["n"] and not re.fullmatch(r"[1-9][0-9]*", r["n"]):
            problems.append(f"{where}: n {r['n']!r} is not a whole number")
    assert not problems, "\n".join(problems)
    assert len(rows) == STUDIES[study][1]


def test_published_reads_every_value_as_a_number(study, rows):
    pub = reference.published(study)
    assert len(pub) == len(rows)
    assert pub["value_parsed"].notna().all(), pub.loc[pub["value_parsed"].isna(), ["item", "metric", "env"]]
    fractions = pub["value_text"].notna()
    assert pub.loc[~fractions, "value"].notna().all()
    assert (pub.loc[fractions, "status"] == "SEED-DERIVED").all()
    assert pub["quote"].notna().all() and str(pub["n"].dtype) == "Int64"
    assert set(pub["status"]) <= STATUSES


# --- rows against the seed text --------------------------------------------------------------


def _numbers(quote: str) -> list[str]:
    return NUMBER.findall(quote)


def _one_number(r: dict[str, str]) -> str | None:
    """The quote prints exactly one number, the value (or, for a range, the bound the metric names)."""
    nums = _numbers(r["quote"])
    if r["metric"].endswith("(lower bound)") and len(nums) == 2:
        nums = nums[:1]
    elif r["metric"].endswith("(upper bound)") and len(nums) == 2:
        nums = nums[1:]
    if nums != [r["value"]]:
        return f"the quote {r['quote']!r} prints {nums}, not just the value {r['value']}"
    return None


def _field(r: dict[str, str], pattern: str, group: str = "v") -> str | None:
    m = re.fullmatch(pattern, r["quote"])
    if not m:
        return f"the quote {r['quote']!r} is not the field {pattern!r} that the metric names"
    if m[group] != r["value"]:
        return f"the quote says {m[group]}, the value is {r['value']}"
    return None


# startup (seed 001) ---------------------------------------------------------------------------

HYPERFINE_TIME = r"Time \(mean ± σ\):\s+(?P<v>[\d.]+) ms ±\s+(?P<err>[\d.]+) ms"
HYPERFINE_RANGE = re.compile(r"\s*Range \(min … max\):\s+(?P<min>[\d.]+) ms …\s+(?P<max>[\d.]+) ms\s+(?P<runs>\d+) runs")


def _check_startup(r: dict[str, str], lines: tuple[str, ...]) -> str | None:
    n = _line_no(r)
    if r["item"] == "hyperfine":
        cmd, _, quantity = r["metric"].rpartition(": ")
        time_line = n - 1 if quantity in ("wall time min", "wall time max") else n
        if lines[time_line - 2] != f"Benchmark 1: '{cmd}'":
            return f"line {time_line - 1} is {lines[time_line - 2]!r}, not the benchmark of {cmd!r}"
        rng = HYPERFINE_RANGE.fullmatch(lines[time_line])
        if not re.search(HYPERFINE_TIME, lines[time_line - 1]) or not rng:
            return f"lines {time_line}-{time_line + 1} are not a hyperfine result"
        if r["n"] != rng["runs"]:
            return f"n = {r['n']}, hyperfine ran {rng['runs']} runs"
        if quantity == "wall time mean":
            problem = _field(r, HYPERFINE_TIME)
            if problem is None and r["err"] != re.fullmatch(HYPERFINE_TIME, r["quote"])["err"]:
                return f"err {r['err']} is not the printed σ ({r['quote']!r})"
            return problem
        if quantity in ("user time mean", "system time mean"):
            return _field(r, rf"{quantity.split()[0].capitalize()}: (?P<v>[\d.]+) ms")
        if quantity in ("wall time min", "wall time max"):
            return _field(r, HYPERFINE_RANGE.pattern.removeprefix(r"\s*"), quantity.split()[-1])
        return f"unknown hyperfine quantity {quantity!r}"
    if r["metric"].endswith("elapsed (wall clock) time"):
        m = re.fullmatch(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\d+):(\d+\.\d+)", r["quote"])
        if not m or f"{60 * int(m[1]) + float(m[2]):.2f}" != r["value"]:
            return f"{r['quote']!r} is not {r['value']} s"
        return None
    if " = " in r["quote"]:  # "x = 43.0ms - 4.1ms = 38.9ms": the value is the result
        m = re.fullmatch(r"\w+ = (?P<a>[\d.]+)ms - (?P<b>[\d.]+)ms = (?P<v>[\d.]+)ms", r["quote"])
        if not m or round(float(m["a"]) - float(m["b"]), 1) != float(m["v"]):
            return f"{r['quote']!r} is not a subtraction"
        return _field(r, m.re.pattern)
    return _one_number(r)


# fsync (seed 002) ------------------------------------------------------------------------------

FSYNC_SETUPS = [  # the sentence that opens each setup's part of the text, in order
    ("以下是直接在物理机测试的fsync iops.", "physical"),
    ("以下是通过nfs挂载之后测试的iops.", "NFS"),
    ("以下还是通过nfs挂载后的iops, 只是挂载option不一样, (这是ovirt的默认挂载项).", "NFS, oVirt mount options"),
    ("以下是在此NFS挂载项上的虚拟机镜像测出来的IOPS.", "KVM guest, image on NFS"),
    ("从测试结果来看, NFS对于IOPS的性能损失大概有75%, 虚拟机(KVM)的IOPS性能损失约39%.", None),
    ("补充一个ISCSI设备(联想的iscsi存储)的iops测试结果. 相比FC设备, IOPS确实不行.", "iSCSI"),
]
FSYNC_BLOCKS = {
    "Compare file sync methods using one 8kB write:": "one 8kB write",
    "Compare file sync methods using two 8kB writes:": "two 8kB writes",
    "Compare open_sync with different write sizes:": "open_sync write sizes",
    "Test if fsync on non-write file descriptor is honored:": "fsync on non-write descriptor",
    "Non-Sync'ed 8kB writes:": "non-sync'ed 8kB writes",
}
PG_LINE = r"(?P<label>.+?)\s+(?P<ops>[\d.]+) ops/sec(?:\s+(?P<us>\d+) usecs/op)?"


def _fsync_setup(lines: tuple[str, ...], n: int) -> str | None:
    setup = None
    for text in lines[:n - 1]:
        for opening, name in FSYNC_SETUPS:
            if text == opening:
                setup = name
    return setup


def _check_fsync(r: dict[str, str], lines: tuple[str, ...]) -> str | None:
    n = _line_no(r)
    if r["item"] in ("pg_test_fsync", "iostat -x 1") and _fsync_setup(lines, n) != r["env"]:
        return f"line {n} is in the part of the text about {_fsync_setup(lines, n)!r}"
    if r["item"] == "pg_test_fsync":
        block = next((FSYNC_BLOCKS[t] for t in reversed(lines[:n - 1]) if t in FSYNC_BLOCKS), None)
        where, _, quantity = r["metric"].rpartition(": ")
        want_block, _, label = where.partition(", ")
        if block != want_block:
            return f"line {n} is in the block {block!r}"
        m = re.fullmatch(PG_LINE, r["quote"])
        if not m or r["quote"] != lines[n - 1].strip():
            return f"the quote {r['quote']!r} is not the whole pg_test_fsync line"
        printed = re.sub(r"\s+", " ", m["label"])
        if printed != label and not (r["env"] == "iSCSI" and re.fullmatch(rf"\d+ \* {re.escape(printed)}", label)):
            return f"line {n} is {printed!r}, not {label!r}"
        return _field(r, PG_LINE, {"ops/sec": "ops", "usecs/op": "us"}[quantity])
    if r["item"] == "iostat -x 1":
        prefix, col = r["metric"].split(" ")
        header, values = lines[n - 2].split(), lines[n - 1].split()
        if r["quote"] != lines[n - 1].strip() or values[0] != prefix and header[0] != f"{prefix}:":
            return f"line {n} is not the iostat {prefix} line"
        cols = header[1:]
        values = values[1:] if values[0] == prefix else values
        if col not in cols or values[cols.index(col)] != r["value"]:
            return f"column {col} of line {n} is not {r['value']}"
        return None
    if r["item"] == "ping -s 8192":
        seq = re.fullmatch(r"icmp_seq=(\d+): round-trip time", r["metric"])[1]
        return _field(r, rf"icmp_seq={seq} ttl=64 time=(?P<v>[\d.]+) ms")
    return _one_number(r)


# sysbench_suite (seed 004) -----------------------------------------------------------------------

SB_ENVS = {  # section heading of the text: env
    "物理机": "physical", "lxc": "lxc", "vbox": "vbox", "vbox on lvm": "vbox on lvm", "vbox on vdi": "vbox on vdi",
    "ext4": "physical ext4", "xfs": "physical xfs", "btrfs": "physical btrfs",
    "aufs透明": "physical aufs, with copy-up (aufs透明)", "aufs非透明": "physical aufs, no copy-up (aufs非透明)",
    "分析": None,
}
SB_TESTS = {"hdparm", "cpu", "fileio", "memory", "threads", "nginx"}
SB_SUMMARY = {
    "total time": r"total time: (?P<v>[\d.]+)s",
    "total number of events": r"total number of events: (?P<v>\d+)",
    "total time taken by event execution": r"total time taken by event execution: (?P<v>[\d.]+)",
    "per-request latency min": r"min: (?P<v>[\d.]+)ms",
    "per-request latency avg": r"avg: (?P<v>[\d.]+)ms",
    "per-request latency max": r"max: (?P<v>[\d.]+)ms",
    "per-request latency 95th percentile": r"approx\. 95 percentile: (?P<v>[\d.]+)ms",
}
SB_FILEIO = {
    "reads": r"(?P<v>\d+) Read", "writes": r"(?P<v>\d+) Write", "other operations": r"(?P<v>\d+) Other",
    "total operations": r"= (?P<v>\d+) Total", "read": r"Read (?P<v>[\d.]+)(?P<u>Mb|Gb)",
    "written": r"Written (?P<v>[\d.]+)(?P<u>Mb|Gb)",
    "total transferred": r"Total transferred (?P<v>[\d.]+)(?P<u>Mb|Gb)",
    "transfer rate": r"\((?P<v>[\d.]+)(?P<u>Mb/sec|Kb/sec)\)", "requests/sec": r"(?P<v>[\d.]+) Requests/sec executed",
}
SB_MEMORY = {
    "operations": r"Operations performed: (?P<v>\d+)", "operations/sec": r"\((?P<v>[\d.]+) ops/sec\)",
    "transferred": r"(?P<v>[\d.]+) MB transferred", "transfer rate": r"\((?P<v>[\d.]+) MB/sec\)",
}
AB = {
    "concurrency level": r"Concurrency Level: (?P<v>\d+)",
    "time taken for tests": r"Time taken for tests: (?P<v>[\d.]+) seconds",
    "complete requests": r"Complete requests: (?P<v>\d+)", "failed requests": r"Failed requests: (?P<v>\d+)",
    "write errors": r"Write errors: (?P<v>\d+)", "keep-alive requests": r"Keep-Alive requests: (?P<v>\d+)",
    "total transferred": r"Total transferred: (?P<v>\d+) bytes",
    "HTML transferred": r"HTML transferred: (?P<v>\d+) bytes",
    "requests per second": r"Requests per second: (?P<v>[\d.]+) \[#/sec\] \(mean\)",
    "time per request (mean)": r"Time per request: (?P<v>[\d.]+) \[ms\] \(mean\)",
    "time per request (mean, across all concurrent requests)":
        r"Time per request: (?P<v>[\d.]+) \[ms\] \(mean, across all concurrent requests\)",
    "transfer rate": r"Transfer rate: (?P<v>[\d.]+) \[Kbytes/sec\] received",
}
HDPARM = r"Timing (?P<kind>cached reads|buffered disk reads): (?P<mb>\d+) MB in (?P<s>[\d.]+) seconds = (?P<rate>[\d.]+) MB/sec"


@functools.cache
def _sysbench_sections(lines: tuple[str, ...]) -> dict[int, tuple[str | None, str]]:
    """line number: (env, test) as the text's headings place it. The memory section's first
    output is seq and its second rnd; the threads section's first summary is threads, the
    second mutex (the order of the commands at the top of the text)."""
    env, test, seen, out = None, None, 0, {}
    for n, text in enumerate(lines, start=1):
        if text in SB_ENVS:
            env, test = SB_ENVS[text], ("fileio" if text in ("ext4", "xfs", "btrfs", "aufs透明", "aufs非透明") else None)
        elif text in SB_TESTS:
            test, seen = text, 0
        elif test == "memory" and text.startswith("Operations performed:"):
            seen += 1
        elif test == "threads" and text.startswith("Test execution summary:"):
            seen += 1
        if test == "memory":
            out[n] = (env, ("memory seq", "memory rnd")[seen - 1] if seen else "memory")
        elif test == "threads":
            out[n] = (env, ("threads", "mutex")[seen - 1] if seen else "threads")
        else:
            out[n] = (env, test)
    return out


def _check_sysbench(r: dict[str, str], lines: tuple[str, ...]) -> str | None:
    n = _line_no(r)
    if r["status"] == "SEED-DERIVED":
        return _one_number(r)
    env, test = _sysbench_sections(lines)[n]
    if env != r["env"]:
        return f"line {n} is in the section of {env!r}"
    if r["item"] == "hdparm -tT":
        kind, _, field = r["metric"].partition(": ")
        if test != "hdparm" or not r["quote"].startswith(f"Timing {kind}:"):
            return f"line {n} ({test}) is not hdparm's {kind}"
        return _field(r, HDPARM, {"MB read": "mb", "seconds": "s", "MB/sec": "rate"}[field])
    if r["item"] == "ab (nginx)":
        if test != "nginx":
            return f"line {n} is in the {test} section, not nginx"
        return _field(r, AB[r["metric"]])
    sb_test, _, field = r["metric"].partition(": ")
    if sb_test != test:
        return f"line {n} is in the {test} section, not {sb_test}"
    pattern = SB_SUMMARY.get(field) or (SB_FILEIO if test == "fileio" else SB_MEMORY).get(field)
    if pattern is None:
        return f"unknown sysbench field {field!r}"
    if "(?P<u>" in pattern and re.fullmatch(pattern, r["quote"]) and \
            re.fullmatch(pattern, r["quote"])["u"] != r["unit"]:
        return f"unit {r['unit']} is not the printed one ({r['quote']!r})"
    return _field(r, pattern)


CHECKS = {"startup": _check_startup, "fsync": _check_fsync, "sysbench_suite": _check_sysbench}


def _problems(study: str, rows: list[dict[str, str]], lines: tuple[str, ...]) -> list[str]:
    problems = []
    for r in rows:
        n = _line_no(r)
        if not 1 <= n <= len(lines):
            problems.append(f"{_where(r)}: the seed has {len(lines)} lines")
            continue
        if r["quote"] not in lines[n - 1]:
            problems.append(f"{_where(r)}: the quote {r['quote']!r} is not on line {n}: {lines[n - 1][:120]!r}")
            continue
        problem = CHECKS[study](r, lines)
        if problem:
            problems.append(f"{_where(r)}: {problem}")
    return problems


def test_every_row_is_on_its_line(study, rows, seed):
    problems = _problems(study, rows, seed)
    assert not problems, "\n".join(problems)


def test_a_wrong_line_or_value_is_caught(study, rows, seed):
    """The check above fails for a row moved to a neighbouring line or given another number."""
    for r in rows[:: max(1, len(rows) // 40)]:
        for delta in (-1, 1, -4, 4):
            moved = copy.deepcopy(r)
            moved["source"] = re.sub(r":\d+$", f":{_line_no(r) + delta}", r["source"])
            assert _problems(study, [moved], seed), f"{_where(r)} still passes on line {_line_no(r) + delta}"
        wrong = copy.deepcopy(r)
        wrong["value"] = "1/2" if FRACTION.match(r["value"]) else f"{float(r['value']) + 1:g}"
        assert _problems(study, [wrong], seed), f"{_where(r)} still passes with value {wrong['value']}"


def test_a_row_on_the_same_text_in_another_section_is_caught():
    """'total number of events: 10000' is printed by cpu and threads of three environments: a
    row cited on another of those lines is caught by the section check, not by the quote."""
    name = STUDIES["sysbench_suite"][0]
    _require(_seed_dir() / name, "the seed text of sysbench_suite")
    lines = _seed_lines(name)
    everything = _rows("sysbench_suite")
    cpu = [r for r in everything if r["metric"] == "cpu: total number of events"]
    threads = [r for r in everything if r["metric"] == "threads: total number of events"]
    assert {r["quote"] for r in cpu + threads} == {"total number of events: 10000"}
    assert not _problems("sysbench_suite", cpu, lines)
    for a in cpu:
        for b in cpu + threads:
            if a is not b:
                assert _problems("sysbench_suite", [{**a, "source": b["source"]}], lines)


# --- values read off the seeds by hand ---------------------------------------------------------

SPOT = [  # (study, item, metric, env, value, err, n)
    ("startup", "hyperfine", "crun run foo: wall time mean", "Fedora 24, kernel 4.5.5, with seccomp profile",
     159.2, 21.8, 39),
    ("startup", "hyperfine", "crun run foo: user time mean", "Fedora 24, kernel 4.5.5, with seccomp profile",
     43.0, None, 39),
    ("startup", "hyperfine", "crun run foo: user time mean", "Fedora 24, kernel 4.5.5, without seccomp profile",
     4.1, None, 47),
    ("startup", "hyperfine", "crun run foo: wall time mean", "Fedora 24, kernel 4.5.5, without seccomp profile",
     139.6, 20.8, 47),
    ("startup", "hyperfine", "crun run foo: wall time mean", "new libseccomp", 28.9, 5.9, 73),
    ("startup", "hyperfine", "crun-from-the-future run foo: wall time mean",
     "crun-from-the-future (BPF filter cache)", 5.6, 3.0, 101),
    ("startup", "hyperfine", "unshare -n true: wall time mean", "Fedora 24, kernel 4.5.5", 47.7, 51.4, 365),
    ("startup", "hyperfine", "unshare -n true: wall time mean", "kernel 5.19.15", 1.5, 0.5, 1907),
    ("startup", "hyperfine", "unshare -n true: wall time max", "kernel 5.19.15", 6.7, None, 1907),
    ("startup", "hyperfine", "unshare --propagation=private -m mount -t mqueue mqueue /tmp/mqueue: wall time mean",
     "Fedora 24, kernel 4.5.5", 16.8, 3.1, 261),
    ("startup", "hyperfine", "unshare --propagation=private -m mount -t mqueue mqueue /tmp/mqueue: wall time mean",
     "after commit 36735a6a", 0.7, 0.5, 772),
    ("startup", "hyperfine", "unshare -i true: wall time mean", "before commit e1eb26fa", 10.9, 2.1, 310),
    ("startup", "hyperfine", "unshare -i true: wall time mean", "kernel 5.19.15", 0.1, 0.2, 1966),
    ("startup", "commit e1eb26fa", "./ipc-namespace (1000 x unshare(CLONE_NEWIPC)): elapsed (wall clock) time",
     "before commit e1eb26fa", 8.05, None, None),
    ("startup", "commit e1eb26fa", "./ipc-namespace (1000 x unshare(CLONE_NEWIPC)): system time",
     "after commit e1eb26fa", 0.02, None, None),
    ("startup", "seccomp user time", "crun run foo: user time used by seccomp",
     "before libseccomp commit 9b129c41", 38.9, None, None),
    ("startup", "seccomp user time", "crun run foo: user time used by seccomp",
     "after libseccomp commit 9b129c41", 12.6, None, None),
    ("startup", "conclusion", "time to create and destroy an OCI container: speed-up",
     "crun-from-the-future (BPF filter cache) vs 2017", 30, None, None),
    ("fsync", "pg_test_fsync", "one 8kB write, fdatasync: ops/sec", "physical", 11868.601, None, None),
    ("fsync", "pg_test_fsync", "one 8kB write, fdatasync: usecs/op", "physical", 84, None, None),
    ("fsync", "pg_test_fsync", "one 8kB write, fdatasync: ops/sec", "NFS", 1341.710, None, None),
    ("fsync", "pg_test_fsync", "one 8kB write, fdatasync: ops/sec", "KVM guest, image on NFS", 759.011, None, None),
    ("fsync", "pg_test_fsync", "one 8kB write, open_datasync: ops/sec", "NFS, oVirt mount options", 1336.481,
     None, None),
    ("fsync", "pg_test_fsync", "one 8kB write, fdatasync: ops/sec", "iSCSI", 1942.958, None, None),
    ("fsync", "pg_test_fsync", "open_sync write sizes, 16 * 1kB open_sync writes: usecs/op", "NFS", 12100,
     None, None),
    ("fsync", "pg_test_fsync", "non-sync'ed 8kB writes, write: ops/sec", "KVM guest, image on NFS", 149844.011,
     None, None),
    ("fsync", "iostat -x 1", "sda w/s", "physical", 11772.00, None, None),
    ("fsync", "iostat -x 1", "sda w/s", "NFS", 2202.97, None, None),
    ("fsync", "ping -s 8192", "icmp_seq=4: round-trip time", "NFS client 172.16.3.150 -> NFS server 172.16.3.39",
     0.511, None, None),
    ("fsync", "8KB sync write decomposition", "total, as seen in the VM", "KVM guest, image on NFS", 1.23, None, None),
    ("fsync", "8KB sync write decomposition", "NFS network", "KVM guest, image on NFS", 0.5, None, None),
    ("fsync", "8KB sync write decomposition", "physical storage IO", "KVM guest, image on NFS", 0.25, None, None),
    ("fsync", "8KB sync write decomposition", "VM", "KVM guest, image on NFS", 0.48, None, None),
    ("fsync", "analysis", "IOPS loss", "NFS vs physical", 75, None, None),
    ("fsync", "analysis", "throughput of 2000 8K packets per second", "network (ping -s 8192)", 16, None, None),
    ("sysbench_suite", "sysbench", "cpu: total time", "physical", 51.4463, None, None),
    ("sysbench_suite", "sysbench", "cpu: total time", "lxc", 51.4368, None, None),
    ("sysbench_suite", "sysbench", "cpu: total time", "vbox", 54.0469, None, None),
    ("sysbench_suite", "sysbench", "cpu: per-request latency 95th percentile", "vbox", 14.87, None, None),
    ("sysbench_suite", "sysbench", "memory seq: transfer rate", "physical", 4439.12, None, None),
    ("sysbench_suite", "sysbench", "memory rnd: transfer rate", "physical", 5281.00, None, None),
    ("sysbench_suite", "sysbench", "memory rnd: operations/sec", "lxc", 5327923.43, None, None),
    ("sysbench_suite", "sysbench", "threads: total time", "vbox", 16.0377, None, None),
    ("sysbench_suite", "sysbench", "mutex: total time", "lxc", 0.1222, None, None),
    ("sysbench_suite", "sysbench", "fileio: requests/sec", "physical ext4", 118.39, None, None),
    ("sysbench_suite", "sysbench", "fileio: requests/sec", "lxc", 30.82, None, None),
    ("sysbench_suite", "sysbench", "fileio: transfer rate", "physical btrfs", 549.23, None, None),
    ("sysbench_suite", "sysbench", "fileio: requests/sec", "vbox on vdi", 839.00, None, None),
    ("sysbench_suite", "sysbench", "fileio: read", "vbox", 1.0399, None, None),
    ("sysbench_suite", "hdparm -tT", "buffered disk reads: MB/sec", "vbox on lvm", 89.73, None, None),
    ("sysbench_suite", "hdparm -tT", "cached reads: MB/sec", "physical", 5992.56, None, None),
    ("sysbench_suite", "ab (nginx)", "requests per second", "lxc", 5890.69, None, None),
    ("sysbench_suite", "ab (nginx)", "concurrency level", "vbox", 5000, None, None),
    ("sysbench_suite", "analysis", "fileio: relative to physical ext4", "vbox", 220, None, None),
]


@pytest.mark.parametrize("study,item,metric,env,value,err,n", SPOT, ids=lambda x: str(x)[:40])
def test_values_read_by_hand(study, item, metric, env, value, err, n):
    pub = reference.published(study)
    row = pub[(pub["item"] == item) & (pub["metric"] == metric) & (pub["env"] == env)]
    assert len(row) == 1, f"{study}: no single row ({item!r}, {metric!r}, {env!r})"
    row = row.iloc[0]
    assert row["value"] == value
    assert (pd.isna(row["err"]) and err is None) or row["err"] == err
    assert (pd.isna(row["n"]) and n is None) or row["n"] == n


def test_units_and_text_values():
    fsync = reference.published("fsync")
    assert set(fsync.loc[fsync["item"] == "pg_test_fsync", "unit"]) == {"ops/sec", "usecs/op"}
    sb = reference.published("sysbench_suite")
    rates = sb[sb["metric"] == "fileio: transfer rate"].set_index("env")["unit"]
    assert rates["physical btrfs"] == "Kb/sec" and rates["physical ext4"] == "Mb/sec"
    lxc = sb[(sb["metric"] == "nginx: requests per second relative to physical") & (sb["item"] == "analysis")]
    assert lxc.set_index("env").loc["lxc", "value_text"] == "1/3"
    assert lxc.set_index("env").loc["lxc", "value_parsed"] == pytest.approx(1 / 3)
    ratio = sb[sb["metric"] == "nginx: requests per second ratio vbox:lxc"].iloc[0]
    assert ratio["value_text"] == "1:5" and ratio["value_parsed"] == pytest.approx(0.2)
    assert (sb.loc[sb["item"] == "sysbench", "note"].str.contains("sysbench --test=")).all()


# --- margins.yml: a margin that stands for a seed's claim of sameness quotes it ------------------

# 'seeds/<file>:<line> "<quote>"', then ':<line> "<quote>"' for more lines of the same file
_CITE = re.compile(r'(?:seeds/(?P<file>[0-9]{3}_[0-9a-f]{16}\.txt))?:(?P<line>[1-9][0-9]*) "(?P<quote>[^"]+)"')


def _seed_citations(reason: str) -> list[tuple[str, int, str]]:
    """Every (seed file, line, quote) a margin's reason cites."""
    out, current = [], None
    for m in _CITE.finditer(reason):
        current = m["file"] or current
        assert current, f"a line cited before its seed file: {m[0]!r}"
        out.append((current, int(m["line"]), m["quote"]))
    return out


def test_margins_that_cite_a_seed_quote_its_line():
    """A rule of data/reference/margins.yml that stands for a seed's claim of sameness quotes
    the seed's words with the line they are on; the words must be on that line."""
    import yaml

    margins = yaml.safe_load((ROOT / "data" / "reference" / "margins.yml").read_text())
    cited = [(r["name"], c) for r in margins["rules"] for c in _seed_citations(r["reason"])]
    assert cited, "no rule cites a seed"
    for name, (file, line, quote) in cited:
        _require(_seed_dir() / file, f"the seed text {file}")
        lines = _seed_lines(file)
        assert quote in lines[line - 1], f"{name}: {quote!r} is not on {file}:{line}"
        # and on no other line: the citation names the one place the claim is made
        assert sum(quote in t for t in lines) == 1, f"{name}: {quote!r} on several lines"


def test_a_margin_citing_the_wrong_line_is_caught():
    rule = 'seeds/004_ebce3edf54acc11d.txt:257 "lxc的性能和物理机十分相近"'
    (file, line, quote), = _seed_citations(rule)
    _require(_seed_dir() / file, f"the seed text {file}")
    assert quote not in _seed_lines(file)[line - 1]
    assert quote in _seed_lines(file)[line]  # the claim is on line 258
