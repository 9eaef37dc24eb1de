"""fio (flexible I/O tester) output: 2.x and 3.x human-readable text, and 3.x JSON / JSON+.

Formats (dispatched on content, line by line, so one file may mix them; :mod:`.text` reads the
text report, :mod:`.json` the JSON documents):

1. fio 2.x "normal" text, as fio 2.0.8 prints it (the IBM authors' ``fio/results/*.log``)::

       random-read-16: (groupid=5, jobs=1): err= 0: pid=9546
         Description  : [Random read steady state phase]
         read : io=13765MB, bw=234919KB/s, iops=58729 , runt= 60001msec
           clat (usec): min=70 , max=1163 , avg=260.52, stdev=40.47
           clat percentiles (usec):
            |  1.00th=[  189],  5.00th=[  205], ...
           bw (KB/s)  : min=224376, max=241680, per=100.00%, avg=234919.39, stdev=2970.27
           lat (usec) : 100=0.01%, 250=39.79%, ...

2. fio 3.x "normal" text (``read: IOPS=12.4k, BW=48.5MiB/s (50.9MB/s)(48.6MiB/1001msec)``,
   latencies in nsec/usec/msec, ``bw (  KiB/s)`` and ``iops`` interval lines with ``samples=``,
   ``issued rwts:``, an ``fsync/fdatasync/sync_file_range:`` section).
3. fio 3.x ``--output-format=json`` and ``json+`` (older 2.x JSON with ``clat`` in usec is read
   too, without ``io_bytes``, whose unit changed between versions). Lines before the document
   (fio's ``note: ...`` warnings, the job lines) are allowed, and ``--output-format=json,normal``
   (fio writes the JSON document first, then the text report) gives both sets of rows, told
   apart by ``p_format``: such a file states each value twice, so pick one format (``json`` is
   the more precise) before aggregating. A JSON document that does not parse is a ParseError
   naming the line where the JSON broke.

Rows per job report (text block or JSON ``jobs[]`` entry) and direction (``p_direction`` read,
write, trim; ``mixed`` with unified_rw_reporting; ``sync`` for the fsync latencies):

- ``io_bytes`` (B), ``bandwidth`` (B/s), ``iops`` (op/s), ``runtime`` (s);
- ``slat_min``, ``slat_max``, ``slat_mean``, ``slat_sd`` and the same for ``clat`` and ``lat``
  (s; the text states usec/msec/nsec per line and a ``K``/``k`` suffix = 1000);
- ``clat_percentile`` (s) with ``p_percentile`` (also ``lat_percentile``/``slat_percentile``
  when fio printed them; the fsync section gives ``lat_*`` rows with p_direction ``sync``);
- ``bandwidth_interval_min``/``_max``/``_mean``/``_sd`` (B/s, the ``bw`` line; fio's per-sample
  bandwidth statistics, what the IBM paper's Fig 5 error bars are), ``bandwidth_share`` (%,
  ``per=``), ``bandwidth_interval_samples`` (count); ``iops_interval_min``/``_max``/``_mean``/
  ``_sd`` (op/s) and ``iops_interval_samples`` (3.x);
- ``issued_ios``, ``short_ios``, ``dropped_ios`` (count; for the directions the job did);
- JSON+ only: ``clat_bin_count`` (count) with ``p_latency`` (s): fio's latency histogram, one
  row per non-empty bin; the key is the bin's representative value (the midpoint of fio's
  log-linear bucket, about 1.6% wide), not a bound, so it is a parameter of its own rather than
  ``p_le``. :func:`latency_bins` turns the bins into an ECDF table.

Rows per job report without a direction: ``cpu_usr``, ``cpu_sys`` (%), ``context_switches``,
``major_faults``, ``minor_faults`` (count); ``lat_bucket`` (% of I/Os) with ``p_le`` (s), the
bucket's upper bound (exclusive: ``250=0.04%`` in usec means 0.04% took less than 250 us and at
least the previous bound), or ``p_ge`` for fio's last ``>=2000`` (msec) bucket;
``iodepth_share`` (%) with ``p_depth``, the lower end of the depth range (``16=`` covers depths
16-31, ``>=64`` is 64 and up). fio's text leaves out empty latency buckets; the zeros of the
JSON ``latency_ns``/``_us``/``_ms`` maps are left out too, so both formats give the same rows.

Group rows (text "Run status group N (all jobs):"), with ``p_group`` and ``p_direction``:
``group_bandwidth`` (aggrb), ``group_bandwidth_min``/``_max`` (minb/maxb, B/s),
``group_io_bytes`` (B), ``group_runtime_min``/``_max`` (mint/maxt, s).
Disk rows ("Disk stats" and JSON ``disk_util``), with ``p_disk`` and, for read/write pairs,
``p_direction``: ``disk_ios``, ``disk_merges``, ``disk_sectors`` (count), ``disk_ticks``,
``disk_in_queue`` (s; the kernel's milliseconds), ``disk_util`` (%), and ``disk_aggr_*`` for the
``aggr`` fields of device-mapper/md devices.

Parameters: p_job (job name; fio prints the first job's name for a group_reporting group),
p_group (groupid), p_job_index (1-based count of reports with the same group and name, which
tells apart the jobs of a ``numjobs`` run without group_reporting), p_numjobs (text: the
``jobs=N`` the report aggregates; JSON, which does not say: the numjobs option when the
document holds one report of that name and group, else 1), p_error (fio's err=), p_description,
p_rw, p_bs (bytes, when the block size of that direction is fixed), p_ioengine, p_iodepth (from
the job lines ``name: (g=0): rw=..., bs=..., ioengine=..., iodepth=...``, else from the JSON job
and global options), p_direction, p_format (``text`` or ``json``), and p_percentile, p_le,
p_ge, p_depth, p_latency, p_disk as above. ``host`` is the JSON ``hostname`` of client/server
runs. ``trial`` numbers the fio runs appended in one file (a new run starts at a job line,
version line or JSON document that follows results). ``tool_version`` is the printed version without ``fio-`` (``2.0.8``,
``3.33``). fio prints only the time a job finished, not when it started, so ``started_at`` is
left empty.

Units: fio 2.x prints sizes and rates with K/M/G = 1024 (``bw=750994KB/s`` is 750994 x 1024
B/s, ``io=16384MB`` is 16384 x 2^20 B). fio 3.x prints both prefixes and means them: ``KiB``,
``MiB`` = 1024-based, ``kB``, ``MB`` = 1000-based (with ``kb_base=1000`` the decimal one comes
first); the first of the pair is used. Rates in bits (``unit_base=1``) are divided by 8. The
``bw (...)`` interval line is the exception: fio keeps those samples in KiB/s and only relabels
them (``kB/s`` with kb_base=1000; ``MiB/s`` after dividing by kb_base), so its numbers are
converted as KiB/s (x kb_base for ``MiB``) whatever the label. JSON
``bw``, ``bw_min``... are KiB/s, ``runtime`` ms, ``*_ns`` ns. Latency and IOPS values use
``k``/``K`` = 1000 in every version. fio rounds what it prints (2.x's decimals are approximate,
its ``io=7354.4MB`` is not exact to 0.1 MB); ``raw`` keeps the printed token.

Absent fields give no rows; JSON directions with no I/O, statistics with no samples (N=0) and
fio's NaN constants give none either. A final line without a newline is ignored (a file cut in
the middle of a line cannot be told from a complete one), except inside a JSON document, which
delimits itself. Text that holds no fio output is a ParseError.

Failed runs raise :class:`~overhead.parsers._common.RunFailed` (``path:line: the run did not
finish: ...``), and no row of the file is kept:

- a job that ended with an error: the text report's ``name: (groupid=0, jobs=1): err=28 (file:
  io_u.c:1876, func=io_u error, error=No space left on device): ...`` line, or the JSON job's
  ``"error" : 28`` line (the message then quotes fio's ``fio: pid=N, err=28/...`` line when the
  file holds it). fio still prints that job's summary, but its figures cover the part it did
  before failing (8 MiB of a 64 MiB job on a full disk), not the run as configured;
- ``fio: terminating on signal N`` with no job summary after it;
- the first such line in the file wins, whatever else the file holds: a file with one good
  job and one failed job, or a complete run followed by a failed one, raises too, because
  keeping only the good jobs would let the failure vanish from a comparison;
- no job summary at all: the first ``fio: ...`` message (other than ``fio: note``) when fio
  printed one, else (only the job lines, version and ``Starting N process``, as when fio was
  killed with SIGKILL) line None.

Runs cut short keep their rows, and the frame is marked cut short
(:func:`~overhead.parsers._common.cut_short`, the rule of :mod:`overhead.parsers`):

- ``fio: terminating on signal N`` (SIGINT, SIGTERM) followed by fio's complete report (text
  or JSON): every job's numbers are there, but they measure a run stopped early (a 10 s job
  stopped at 1.7 s), so the frame says it was interrupted, quoting that line;
- a text report whose job summaries are not followed by their ``Run status group`` lines
  (fio prints every job's summary, then every group's status: a capture that ends before them
  was cut short), a ``Disk stats`` header without its device lines, or a last line without
  its line end (a capture stopped mid-write; the line is not read).
"""


from __future__ import annotations

import re

import pandas as pd

from overhead.parsers._common import ParseError, RunFailed, cut_short
from overhead.parsers.fio import json as _json
from overhead.parsers.fio._run import BENCHMARK, TOOL, Run
from overhead.parsers.fio.text import TextReader

__all__ = ["BENCHMARK", "TOOL", "detect", "latency_bins", "parse"]


def detect(text: str) -> float:
    """Tell whether ``text`` is fio output (text report or JSON).

    Returns a confidence from 0 (not fio output) to 1.
    """
    head = text[:20000]
    if re.search(r"^.*: \(groupid=\d+, jobs=\d+\): err=", head, re.M):
        return 1.0
    if re.search(r'^\s*"fio version"\s*:', head, re.M):
        return 1.0
    if re.search(r"^.*: \(g=\d+\): rw=\S+, bs=", head, re.M):
        return 0.9
    if re.search(r"^Run status group \d+ \(all jobs\):", head, re.M):
        return 0.9
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse fio text and/or JSON output into tidy rows (see the module docstring).

    A line holding only ``{`` (not indented) starts a JSON document, which :mod:`.json` reads
    to its end; every other complete line goes to the text reader.

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    RunFailed
        When the output is fio's but the run failed: a job ended with an error (err != 0),
        fio stopped on a signal, or it printed only its header or its error messages (see
        "Failed runs" in the module docstring).
    ParseError
        When the text holds no fio output, a known line is malformed, or a JSON document is
        truncated (naming the line where the JSON broke).
    """
    run = Run(text, path)
    reader = TextReader(run)
    lines = text.splitlines(keepends=True)
    offsets = []
    pos = 0
    for ln in lines:
        offsets.append(pos)
        pos += len(ln)
    complete = len(lines)
    if lines and lines[-1].splitlines() == [lines[-1]]:
        complete -= 1  # an unterminated last line may be cut short
    i = 0
    while i < len(lines):
        line = lines[i].splitlines()[0]
        if line.strip() == "{" and not line.startswith(" "):
            i = _json.read_document(run, lines, offsets, i) + 1
            reader.reset()
            continue
        i += 1
        if i > complete:
            break
        reader.line(line, i)
    if run.failures:
        line, what = min(run.failures)
        raise RunFailed(path, line, what)
    if not run.found and run.interrupted is not None:
        raise RunFailed(path, *run.interrupted)
    if not run.found:
        if run.messages:
            line, what = run.messages[0]
            raise RunFailed(path, line, what)
        if run.started:
            raise RunFailed(path, None, "fio printed its header (job lines, version, 'Starting ...') "
                                        "but no job summary: the jobs never finished")
        raise ParseError(path, None, "no fio output found (no '<job>: (groupid=N, jobs=N)' report, "
                                     "'Run status group' or JSON document with \"jobs\")")
    run.end_trial()
    df = run.rows.frame()
    if run.interrupted is not None:
        line, what = run.interrupted
        return cut_short(df, path, line, f"{what}: the jobs were interrupted; their report after "
                         "this line is kept, but it measures a run stopped early")
    if run.disk_head is not None:
        return cut_short(df, path, run.disk_head, "'Disk stats' with no device line after it: the "
                         "capture ends before fio's closing lines; the report read is kept")
    if complete < len(lines) and lines[-1].strip():
        return cut_short(df, path, len(lines), "the last line has no line end: the capture stopped "
                         "while fio was writing it (the line is not read); the rest is kept")
    if run.open_groups:
        group, line = min(run.open_groups.items(), key=lambda kv: kv[1])
        return cut_short(df, path, None, f"the job summary at line {line} (group {group}) is not "
                         f"followed by 'Run status group {group}': the capture ends before fio's "
                         "closing lines; the summaries read are kept")
    return df


def latency_bins(text: str, path: str = "<string>") -> pd.DataFrame:
    """Tabulate the json+ latency histograms of ``text`` as an ECDF table.

    Parameters
    ----------
    text : str
        The whole output (``--output-format=json+``).
    path : str
        Its name, used in ``source`` and in errors.

    Returns
    -------
    pandas.DataFrame
        One row per non-empty bin, sorted, with columns ``job``, ``direction``, ``latency_s``
        (the bin's representative latency, s), ``count`` (I/Os in the bin), ``ecdf``
        (fraction 0..1 of that histogram's I/Os with latency <= latency_s), and ``group``,
        ``job_index``, ``trial``, ``kind`` (clat, or lat/slat when fio dumped those) and
        ``source`` to tell histograms apart.

    Raises
    ------
    ParseError
        When the output has no json+ bins (or does not parse).
    """
    df = parse(text, path)
    bins = df[df["metric"].str.endswith("_bin_count")]
    if bins.empty:
        raise ParseError(path, None, "no json+ latency bins (run fio with --output-format=json+)")
    out = bins[["p_job", "p_direction", "p_latency", "value", "p_group", "p_job_index", "trial",
                "metric", "source"]].set_axis(
        ["job", "direction", "latency_s", "count", "group", "job_index", "trial", "kind",
         "source"], axis=1).astype(
        {"job": "string", "direction": "string", "latency_s": "float64", "count": "int64",
         "group": "Int64", "job_index": "Int64", "trial": "Int64"})
    out["kind"] = bins["metric"].str.removesuffix("_bin_count").astype("string")
    keys = ["trial", "group", "job", "job_index", "direction", "kind"]
    out = out.sort_values([*keys, "latency_s"], kind="stable").reset_index(drop=True)
    cum = out.groupby(keys, sort=False, dropna=False)["count"].cumsum()
    total = out.groupby(keys, sort=False, dropna=False)["count"].transform("sum")
    out.insert(4, "ecdf", cum / total)
    return out
