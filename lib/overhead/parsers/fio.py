"""fio (flexible I/O tester) output: 2.x and 3.x human-readable text, and 3.x JSON / JSON+.

Formats (one module, dispatched on content; one file may mix them):

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
delimits itself. Text that holds no fio report is a ParseError.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from dataclasses import dataclass, field

import pandas as pd

from overhead.parsers._common import (
    JSON_DECODER,
    JsonNumber,
    ParseError,
    frame,
    json_line_map,
    source,
)

TOOL = "fio"
BENCHMARK = "fio"

_DIRS = ("read", "write", "trim")
_LAT_SCALE = {"nsec": 1e-9, "usec": 1e-6, "msec": 1e-3}
_DECIMAL = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15, "e": 1e18}
_BINARY = {"": 1.0, "k": 1024.0, "m": 1024.0**2, "g": 1024.0**3, "t": 1024.0**4, "p": 1024.0**5,
           "e": 1024.0**6}
_NAN_TOKENS = {"nan", "-nan", "inf", "-inf", "n/a"}

# metric -> (unit, higher_is_better)
_METRICS: dict[str, tuple[str, bool | None]] = {
    "io_bytes": ("B", None), "bandwidth": ("B/s", True), "iops": ("op/s", True),
    "runtime": ("s", None),
    "bandwidth_interval_min": ("B/s", True), "bandwidth_interval_max": ("B/s", True),
    "bandwidth_interval_mean": ("B/s", True), "bandwidth_interval_sd": ("B/s", None),
    "bandwidth_share": ("%", None), "bandwidth_interval_samples": ("count", None),
    "iops_interval_min": ("op/s", True), "iops_interval_max": ("op/s", True),
    "iops_interval_mean": ("op/s", True), "iops_interval_sd": ("op/s", None),
    "iops_interval_samples": ("count", None),
    "issued_ios": ("count", None), "short_ios": ("count", None), "dropped_ios": ("count", None),
    "cpu_usr": ("%", False), "cpu_sys": ("%", False), "context_switches": ("count", None),
    "major_faults": ("count", None), "minor_faults": ("count", None),
    "lat_bucket": ("%", None), "iodepth_share": ("%", None),
    "group_bandwidth": ("B/s", True), "group_bandwidth_min": ("B/s", True),
    "group_bandwidth_max": ("B/s", True), "group_io_bytes": ("B", None),
    "group_runtime_min": ("s", None), "group_runtime_max": ("s", None),
}
for _kind in ("slat", "clat", "lat"):
    for _stat in ("min", "max", "mean"):
        _METRICS[f"{_kind}_{_stat}"] = ("s", False)
    _METRICS[f"{_kind}_sd"] = ("s", None)
    _METRICS[f"{_kind}_percentile"] = ("s", False)
    _METRICS[f"{_kind}_bin_count"] = ("count", None)
for _prefix in ("disk_", "disk_aggr_"):
    for _name, _unit in (("ios", "count"), ("merges", "count"), ("sectors", "count"),
                         ("ticks", "s"), ("in_queue", "s"), ("util", "%")):
        _METRICS[_prefix + _name] = (_unit, None)

# ---------------------------------------------------------------------------------------------
# Text line patterns
_JOBDEF = re.compile(r"^(?P<name>.*?): \(g=(?P<g>\d+)\): rw=(?P<rw>[^,]+), bs=(?P<bs>.+?), "
                     r"ioengine=(?P<eng>[^,]+), iodepth=(?P<qd>\d+)\s*$")
_VERSION = re.compile(r"^(?:fio-(?P<v3>\d+\.\d+\S*)|(?P<v2>\d+\.\d+\.\d+))\s*$")
_HEADER = re.compile(r"^(?P<name>.*?): \(groupid=(?P<g>\d+), jobs=(?P<n>\d+)\): "
                     r"err=\s*(?P<err>-?\d+)")
_DESC = re.compile(r"^\s+Description\s*:\s*\[(?P<d>.*)\]\s*$")
_DIR_OLD = re.compile(r"^\s+(?P<dir>read|write|trim|mixed)\s*:\s*io=(?P<io>\S+), bw=(?P<bw>\S+), "
                      r"iops=(?P<iops>\S+)\s*, runt=\s*(?P<runt>\d+)msec\s*$")
_DIR_NEW = re.compile(r"^\s+(?P<dir>read|write|trim|mixed)\s*:\s*IOPS=(?P<iops>[^,\s]+), "
                      r"BW=(?P<bw>\S+) \((?P<bw2>[^)]*)\)\((?P<io>[^/)]+)/(?P<runt>\d+)msec\)")
_SYNC = re.compile(r"^\s+fsync/fdatasync/sync_file_range:\s*$")
_STATS = re.compile(r"^\s+(?P<kind>slat|clat|lat|sync)\s*\((?P<unit>nsec|usec|msec)\)\s*:\s*"
                    r"(?P<rest>min=.*)$")
_PCT_HEAD = re.compile(r"^\s+(?P<kind>slat|clat|lat|sync) percentiles\s*"
                       r"\((?P<unit>nsec|usec|msec)\)\s*:\s*$")
_PCT_LINE = re.compile(r"^\s+\|(?P<rest>.*)$")
_PCT_ITEM = re.compile(r"(\d+(?:\.\d+)?)th=\[\s*([^\]\s]*)\s*\]")
_BW = re.compile(r"^\s+bw\s*\(\s*(?P<unit>[^)]*?)\s*\)\s*:\s*(?P<rest>min=.*)$")
_IOPS = re.compile(r"^\s+iops\s*:\s*(?P<rest>min=.*)$")
_BUCKETS = re.compile(r"^\s+lat\s*\((?P<unit>nsec|usec|msec)\)\s*:\s*(?P<rest>(?!min=).*=.*)$")
_BUCKET_ITEM = re.compile(r"(>=)?(\d+)=([^,\s]+)")
_CPU = re.compile(r"^\s+cpu\s*:\s*(?P<rest>usr=.*)$")
_DEPTHS = re.compile(r"^\s+IO depths\s*:\s*(?P<rest>.*)$")
_ISSUED_OLD = re.compile(r"^\s+issued\s*:\s*(?P<rest>total=r=.*)$")
_ISSUED_NEW = re.compile(r"^\s+issued rwts?\s*:\s*(?P<rest>total=.*)$")
_ITEM = re.compile(r"(\w+)=\s*([^,\s]+)")
_GROUP = re.compile(r"^Run status group (?P<g>\d+) \(all jobs\):\s*$")
_GROUP_OLD = re.compile(r"^\s+(?P<dir>READ|WRITE|TRIM|MIXED): io=(?P<io>\S+), aggrb=(?P<bw>\S+), "
                        r"minb=(?P<minb>\S+), maxb=(?P<maxb>\S+), mint=(?P<mint>\d+)msec, "
                        r"maxt=(?P<maxt>\d+)msec\s*$")
_GROUP_NEW = re.compile(r"^\s+(?P<dir>READ|WRITE|TRIM|MIXED): bw=(?P<bw>\S+) \([^)]*\), "
                        r"(?P<minb>[^-\s]+)-(?P<maxb>[^\s(]+) \([^)]*\), io=(?P<io>\S+) \([^)]*\), "
                        r"run=(?P<mint>\d+)-(?P<maxt>\d+)msec\s*$")
_DISK_HEAD = re.compile(r"^Disk stats \(read/write\):\s*$")
_DISK = re.compile(r"^\s+(?P<disk>\S+): (?P<rest>ios=.*)$")
_DISK_ITEM = re.compile(r"(\w+)=([0-9.]+%?)(?:/([0-9.]+))?")
_SIZE = re.compile(r"^([0-9]*\.?[0-9]+)([kKmMgGtTpPeE]?)(i?)(B|bit|b)?(/s)?$")
_COUNT = re.compile(r"^([0-9]*\.?[0-9]+)([kKmMgG]?)$")
_DISK_KEYS = {"ios": "ios", "merge": "merges", "sectors": "sectors", "ticks": "ticks",
              "in_queue": "in_queue", "util": "util"}


# ---------------------------------------------------------------------------------------------
# Detection
def detect(text: str) -> float:
    """Confidence (0..1) that ``text`` is fio output (text report or JSON)."""
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


# ---------------------------------------------------------------------------------------------
# Number helpers
def _count(token: str, path: str, line: int, what: str) -> float:
    """A count or latency as fio prints it: ``733``, ``12.4k``, ``1001.4K`` (K = 1000)."""
    m = _COUNT.match(token.strip())
    if not m:
        raise ParseError(path, line, f"{what}: expected a number, found {token!r}")
    return float(m.group(1)) * _DECIMAL[m.group(2).lower()]


def _plain(token: str, path: str, line: int, what: str) -> float:
    """A plain decimal number (``150.29``, ``99.27%`` without the percent sign)."""
    tok = token.strip().rstrip("%")
    try:
        value = float(tok)
    except ValueError:
        raise ParseError(path, line, f"{what}: expected a number, found {token!r}") from None
    if not math.isfinite(value):
        raise ParseError(path, line, f"{what}: {token!r} is not a finite number")
    return value


def _bytes(token: str, legacy: bool, path: str, line: int, what: str) -> float:
    """A size or rate (``16384MB``, ``48.5MiB/s``, ``750994KB/s``, ``388Mibit/s``) in bytes.

    ``legacy`` (fio 2.x) makes K/M/G binary; otherwise only the ``i`` prefixes are binary.
    """
    m = _SIZE.match(token.strip())
    if not m:
        raise ParseError(path, line, f"{what}: expected a size like 4096B or 48.5MiB, found {token!r}")
    binary = legacy or bool(m.group(3))
    value = float(m.group(1)) * (_BINARY if binary else _DECIMAL)[m.group(2).lower()]
    return value / 8.0 if m.group(4) == "bit" else value


def _rate_scale(unit: str, legacy: bool, kb1000: bool, path: str, line: int) -> float:
    """Bytes/s per printed unit of a ``bw (KiB/s)`` interval line.

    fio keeps these samples in KiB/s whatever the label says: with kb_base=1000, 3.x labels
    them ``kB/s`` without converting, and when the mean exceeds kb_base^2 it divides by kb_base
    and labels them ``MiB/s`` (so "MiB" means 1000 KiB then); ``unit_base=1`` multiplies by 8
    and says ``Kibit``/``kbit``.
    """
    m = re.fullmatch(r"([kKmM])(i?)(B|bit)/s", unit.replace(" ", ""))
    if not m:
        raise ParseError(path, line, f"bw line: expected a rate unit like KiB/s, found {unit!r}")
    scale = 1024.0
    if m.group(1) in "mM":
        scale *= 1000.0 if (kb1000 and not legacy) else 1024.0
    return scale / 8.0 if m.group(3) == "bit" else scale


def _small_int(token, path: str, line: int, what: str) -> int:
    """An integer parameter (group id, job count, depth) that fits the Int64 columns."""
    try:
        value = int(token)
    except (TypeError, ValueError, OverflowError):
        raise ParseError(path, line, f"{what}: expected an integer, found {token!r}") from None
    if abs(value) >= 2**53:
        raise ParseError(path, line, f"{what}: {token!r} is out of range")
    return value


def _is_nan(token: str) -> bool:
    return token.strip().lower() in _NAN_TOKENS


def _option_bytes(value: str, kb_base_1000: bool) -> float | None:
    """A size given as a fio option (``4k``, ``1M``, ``4096``), with fio's input convention:
    by default (kb_base=1024) ``k`` = 1024 and ``ki`` = 1000; kb_base=1000 swaps them."""
    m = re.match(r"^\s*([0-9]+)\s*([kmgtpe]?)(i?)b?\s*$", value, re.I)
    if not m:
        return None
    prefix, i = m.group(2).lower(), bool(m.group(3))
    binary = i if kb_base_1000 else not i
    value = float(m.group(1)) * (_BINARY if binary else _DECIMAL)[prefix]
    return value if value < 2**53 else None


def _bs_from_jobdef(bs: str, legacy: bool, path: str, line: int) -> dict[str, float | None]:
    """Fixed block sizes per direction from a job line's ``bs=`` part.

    2.x: ``4K-4K/4K-4K`` (read/write[/trim]); 3.x: ``(R) 4096B-4096B, (W) ..., (T) ...``.
    Ranges (min != max) give None.
    """
    out: dict[str, float | None] = {}
    if "(R)" in bs or "(W)" in bs:
        parts = re.findall(r"\(([RWT])\)\s*([^,\s]+)-([^,\s]+)", bs)
        names = {"R": "read", "W": "write", "T": "trim"}
        pairs = [(names[d], lo, hi) for d, lo, hi in parts]
    else:
        pairs = []
        for d, part in zip(_DIRS, bs.split("/"), strict=False):
            lo, _, hi = part.partition("-")
            pairs.append((d, lo, hi or lo))
    for d, lo, hi in pairs:
        a = _bytes(lo, legacy, path, line, "bs")
        b = _bytes(hi, legacy, path, line, "bs")
        out[d] = a if a == b and a < 2**53 else None
    return out


# ---------------------------------------------------------------------------------------------
# JSON helpers
# ---------------------------------------------------------------------------------------------
@dataclass
class _Block:
    """A text job report being read."""

    name: str
    group: int
    numjobs: int
    error: int
    index: int
    legacy: bool | None = None
    kb1000: bool = False  # 3.x with kb_base=1000 (decimal value first on the BW= line)
    description: str | None = None
    direction: str | None = None
    dirs_seen: list[str] = field(default_factory=list)
    pct: tuple[str, str] | None = None  # (metric kind, unit) of the percentile lines


class _Parser:
    def __init__(self, text: str, path: str):
        self.text = text
        self.path = path
        self.rows: list[dict] = []
        self.trial = 0
        self.run_results: set[str] = set()  # formats that produced results in this run
        self.jobdefs: dict[tuple[int, str], dict] = {}
        self.json_options: dict[tuple[int, str], dict] = {}  # options a JSON report stated
        self.version: str | None = None
        self.found = False  # saw any fio result
        self.index_counts: dict[tuple, int] = {}

    # -- run bookkeeping ----------------------------------------------------------------------
    def _new_run_if_needed(self, fmt: str | None = None) -> None:
        """Start a new run (trial) when the current one already has results."""
        if self.trial == 0 or (self.run_results and (fmt is None or fmt in self.run_results)):
            self.trial += 1
            self.run_results = set()
            self.jobdefs = {}
            self.json_options = {}
            self.version = None
            self.index_counts = {}

    def _job_index(self, fmt: str, group: int, name: str) -> int:
        key = (fmt, group, name)
        self.index_counts[key] = self.index_counts.get(key, 0) + 1
        return self.index_counts[key]

    def add(self, metric: str, value: float, line: int, raw: str | None, params: dict) -> None:
        unit, hib = _METRICS[metric]
        value = float(value)
        if not math.isfinite(value):
            raise ParseError(self.path, line, f"{metric}: {raw!r} is out of range")
        row = {"benchmark": BENCHMARK, "tool": TOOL, "metric": metric, "value": value,
               "unit": unit, "higher_is_better": hib, "source": source(self.path, line),
               "raw": raw, "trial": self.trial}
        row.update({k: v for k, v in params.items() if v is not None})
        self.rows.append(row)
        self.found = True

    # -- job context ----------------------------------------------------------------------------
    def _context(self, fmt: str, group: int, name: str, *, numjobs, error, index, description,
                 options: dict | None = None, version: str | None = None) -> dict:
        """Parameters shared by all rows of one job report, and the per-direction block sizes."""
        info = dict(self.jobdefs.get((group, name), {}))
        if options:
            for key, value in options.items():
                info.setdefault(key, value)
        ctx = {"p_format": fmt, "p_job": name, "p_group": group, "p_job_index": index,
               "p_numjobs": numjobs, "p_error": error, "p_description": description,
               "p_rw": info.get("rw"), "p_ioengine": info.get("ioengine"),
               "p_iodepth": info.get("iodepth"), "tool_version": version or self.version}
        bs = info.get("bs") or {}
        sizes = set(bs.values())
        # one size for the whole job only when every direction has that same fixed size
        ctx["p_bs"] = int(sizes.pop()) if len(sizes) == 1 and None not in sizes else None
        ctx["_bs"] = bs
        return ctx

    @staticmethod
    def _dir_params(ctx: dict, direction: str | None) -> dict:
        params = {k: v for k, v in ctx.items() if not k.startswith("_")}
        if direction is not None:
            params["p_direction"] = direction
            if direction in ctx["_bs"]:
                size = ctx["_bs"][direction]
                params["p_bs"] = int(size) if size is not None else None
        return params

    # -- text -----------------------------------------------------------------------------------
    def parse(self) -> None:
        lines = self.text.splitlines(keepends=True)
        offsets = []
        pos = 0
        for ln in lines:
            offsets.append(pos)
            pos += len(ln)
        complete = len(lines)
        if lines and lines[-1].splitlines() == [lines[-1]]:
            complete -= 1  # an unterminated last line may be cut short
        block: _Block | None = None
        ctx: dict = {}
        section: str | None = None
        group: int | None = None
        i = 0
        while i < len(lines):
            raw_line = lines[i]
            line = raw_line.splitlines()[0]
            lineno = i + 1
            if line.strip() == "{" and not line.startswith(" "):
                end = self._json(lines, offsets, i)
                block, section = None, None
                i = end + 1
                continue
            i += 1
            if lineno > complete:
                break
            m = _JOBDEF.match(line)
            if m:
                self._new_run_if_needed()
                block, section = None, None
                legacy = "(R)" not in m.group("bs") and "(W)" not in m.group("bs")
                key = (_small_int(m.group("g"), self.path, lineno, "g="), m.group("name"))
                self.jobdefs[key] = {
                    "rw": m.group("rw").strip(), "ioengine": m.group("eng").strip(),
                    "iodepth": _small_int(m.group("qd"), self.path, lineno, "iodepth"),
                    "bs": _bs_from_jobdef(m.group("bs"), legacy, self.path, lineno)}
                continue
            m = _VERSION.match(line)
            if m:
                self._new_run_if_needed()
                self.version = m.group("v3") or m.group("v2")
                continue
            m = _HEADER.match(line)
            if m:
                if self.trial == 0:
                    self._new_run_if_needed()
                section = None
                g, name = _small_int(m.group("g"), self.path, lineno, "groupid"), m.group("name")
                block = _Block(name=name, group=g,
                               numjobs=_small_int(m.group("n"), self.path, lineno, "jobs"),
                               error=_small_int(m.group("err"), self.path, lineno, "err"),
                               index=self._job_index("text", g, name))
                ctx = self._block_context(block)
                self.run_results.add("text")
                continue
            m = _GROUP.match(line)
            if m:
                if self.trial == 0:
                    self._new_run_if_needed()
                block, section, group = None, "group", _small_int(m.group("g"), self.path, lineno, "group")
                self.run_results.add("text")
                self.found = True
                continue
            if _DISK_HEAD.match(line):
                if self.trial == 0:
                    self._new_run_if_needed()
                block, section = None, "disk"
                continue
            if block is not None:
                ctx = self._block_line(block, ctx, line, lineno)
            elif section == "group":
                self._group_line(group, line, lineno)
            elif section == "disk":
                self._disk_line(line, lineno)

    def _block_context(self, block: _Block) -> dict:
        # fio writes a job line to the terminal, not to --output, when it parses the job before
        # --output; the same run's JSON options (json,normal output) then fill in.
        return self._context("text", block.group, block.name, numjobs=block.numjobs,
                             error=block.error, index=block.index, description=block.description,
                             options=self.json_options.get((block.group, block.name)))

    def _block_line(self, b: _Block, ctx: dict, line: str, lineno: int) -> dict:
        path = self.path
        m = _DESC.match(line)
        if m:
            b.description = m.group("d")
            return self._block_context(b)
        m = _DIR_OLD.match(line)
        if m:
            b.legacy, b.direction, b.pct = True, m.group("dir"), None
            b.dirs_seen.append(b.direction)
            p = self._dir_params(ctx, b.direction)
            self.add("io_bytes", _bytes(m.group("io"), True, path, lineno, "io"), lineno,
                     f"io={m.group('io')}", p)
            self.add("bandwidth", _bytes(m.group("bw"), True, path, lineno, "bw"), lineno,
                     f"bw={m.group('bw')}", p)
            self.add("iops", _count(m.group("iops"), path, lineno, "iops"), lineno,
                     f"iops={m.group('iops')}", p)
            self.add("runtime", float(m.group("runt")) / 1e3, lineno, f"runt={m.group('runt')}msec", p)
            return ctx
        m = _DIR_NEW.match(line)
        if m:
            b.legacy, b.direction, b.pct = False, m.group("dir"), None
            b.kb1000 = bool(re.search(r"i(?:B|bit)/s", m.group("bw2")))
            b.dirs_seen.append(b.direction)
            p = self._dir_params(ctx, b.direction)
            self.add("iops", _count(m.group("iops"), path, lineno, "IOPS"), lineno,
                     f"IOPS={m.group('iops')}", p)
            self.add("bandwidth", _bytes(m.group("bw"), False, path, lineno, "BW"), lineno,
                     f"BW={m.group('bw')}", p)
            self.add("io_bytes", _bytes(m.group("io"), False, path, lineno, "io"), lineno,
                     m.group("io"), p)
            self.add("runtime", float(m.group("runt")) / 1e3, lineno, f"{m.group('runt')}msec", p)
            return ctx
        if _SYNC.match(line):
            b.direction, b.pct = "sync", None
            return ctx
        m = _STATS.match(line)
        if m:
            if b.direction is None:
                raise ParseError(path, lineno, "latency line before any read/write/trim line")
            kind = "lat" if m.group("kind") == "sync" else m.group("kind")
            scale = _LAT_SCALE[m.group("unit")]
            items = self._items(m.group("rest"), ("min", "max", "avg", "stdev"), lineno,
                                f"{kind} line")
            p = self._dir_params(ctx, b.direction)
            for key, stat in (("min", "min"), ("max", "max"), ("avg", "mean"), ("stdev", "sd")):
                tok = items[key]
                if _is_nan(tok):
                    continue
                self.add(f"{kind}_{stat}", _count(tok, path, lineno, f"{kind} {key}") * scale,
                         lineno, f"{key}={tok}", p)
            b.pct = None
            return ctx
        m = _PCT_HEAD.match(line)
        if m:
            if b.direction is None:
                raise ParseError(path, lineno, "percentiles before any read/write/trim line")
            kind = "lat" if m.group("kind") == "sync" else m.group("kind")
            b.pct = (kind, m.group("unit"))
            return ctx
        m = _PCT_LINE.match(line)
        if m and b.pct is not None:
            items = _PCT_ITEM.findall(m.group("rest"))
            leftover = _PCT_ITEM.sub("", m.group("rest")).replace(",", "").strip()
            if not items or leftover:
                raise ParseError(path, lineno, "percentile line: expected items like '50.00th=[  258]'")
            kind, unit = b.pct
            p = self._dir_params(ctx, b.direction)
            for pct, tok in items:
                if _is_nan(tok):
                    continue
                value = _count(tok, path, lineno, "percentile") * _LAT_SCALE[unit]
                self.add(f"{kind}_percentile", value, lineno, tok,
                         {**p, "p_percentile": _plain(pct, path, lineno, "percentile")})
            return ctx
        m = _BW.match(line)
        if m:
            if b.direction is None:
                raise ParseError(path, lineno, "bw line before any read/write/trim line")
            scale = _rate_scale(m.group("unit"), bool(b.legacy), b.kb1000, path, lineno)
            items = self._items(m.group("rest"), ("min", "max", "avg", "stdev"), lineno, "bw line")
            p = self._dir_params(ctx, b.direction)
            for key, metric in (("min", "bandwidth_interval_min"), ("max", "bandwidth_interval_max"),
                                ("avg", "bandwidth_interval_mean"), ("stdev", "bandwidth_interval_sd")):
                tok = items[key]
                if not _is_nan(tok):
                    self.add(metric, _plain(tok, path, lineno, f"bw {key}") * scale, lineno,
                             f"{key}={tok}", p)
            if "per" in items and not _is_nan(items["per"]):
                self.add("bandwidth_share", _plain(items["per"], path, lineno, "bw per"), lineno,
                         f"per={items['per']}", p)
            if "samples" in items:
                self.add("bandwidth_interval_samples",
                         _plain(items["samples"], path, lineno, "bw samples"), lineno,
                         f"samples={items['samples']}", p)
            b.pct = None
            return ctx
        m = _IOPS.match(line)
        if m:
            if b.direction is None:
                raise ParseError(path, lineno, "iops line before any read/write/trim line")
            items = self._items(m.group("rest"), ("min", "max", "avg", "stdev"), lineno, "iops line")
            p = self._dir_params(ctx, b.direction)
            for key, metric in (("min", "iops_interval_min"), ("max", "iops_interval_max"),
                                ("avg", "iops_interval_mean"), ("stdev", "iops_interval_sd"),
                                ("samples", "iops_interval_samples")):
                tok = items.get(key)
                if tok is not None and not _is_nan(tok):
                    self.add(metric, _plain(tok, path, lineno, f"iops {key}"), lineno,
                             f"{key}={tok}", p)
            return ctx
        m = _BUCKETS.match(line)
        if m:
            scale = _LAT_SCALE[m.group("unit")]
            items = _BUCKET_ITEM.findall(m.group("rest"))
            if not items or _BUCKET_ITEM.sub("", m.group("rest")).replace(",", "").strip():
                raise ParseError(path, lineno, "latency distribution: expected items like '250=39.79%'")
            p = self._dir_params(ctx, None)
            for ge, bound, tok in items:
                if not tok.endswith("%"):
                    raise ParseError(path, lineno, f"latency distribution: expected a percentage, found {tok!r}")
                key = "p_ge" if ge else "p_le"
                self.add("lat_bucket", _plain(tok, path, lineno, "latency share"), lineno, tok,
                         {**p, key: _small_int(bound, path, lineno, "latency bound") * scale})
            b.pct = None
            return ctx
        m = _CPU.match(line)
        if m:
            items = self._items(m.group("rest"), ("usr", "sys"), lineno, "cpu line")
            p = self._dir_params(ctx, None)
            for key, metric in (("usr", "cpu_usr"), ("sys", "cpu_sys"), ("ctx", "context_switches"),
                                ("majf", "major_faults"), ("minf", "minor_faults")):
                tok = items.get(key)
                if tok is not None and not _is_nan(tok):
                    self.add(metric, _plain(tok, path, lineno, f"cpu {key}"), lineno, f"{key}={tok}", p)
            b.pct = None
            return ctx
        m = _DEPTHS.match(line)
        if m:
            items = _BUCKET_ITEM.findall(m.group("rest"))
            if not items:
                raise ParseError(path, lineno, "IO depths: expected items like '16=100.0%'")
            p = self._dir_params(ctx, None)
            for _ge, depth, tok in items:
                if not tok.endswith("%"):
                    raise ParseError(path, lineno, f"IO depths: expected a percentage, found {tok!r}")
                self.add("iodepth_share", _plain(tok, path, lineno, "IO depth share"), lineno, tok,
                         {**p, "p_depth": _small_int(depth, path, lineno, "IO depth")})
            return ctx
        m = _ISSUED_OLD.match(line)
        if m:
            for kind, r, w, t in re.findall(r"(total|short|drop)=r=(\d+)/w=(\d+)(?:/d=(\d+))?",
                                            m.group("rest")):
                self._issued(b, ctx, kind, dict(zip(_DIRS, (r, w, t), strict=True)), lineno)
            return ctx
        m = _ISSUED_NEW.match(line)
        if m:
            for kind, values in re.findall(r"(total|short|dropped)=([0-9,]+)", m.group("rest")):
                counts = [v for v in values.split(",") if v]
                self._issued(b, ctx, kind, dict(zip((*_DIRS, "sync"), counts, strict=False)), lineno)
            return ctx
        return ctx

    def _issued(self, b: _Block, ctx: dict, kind: str, counts: dict, lineno: int) -> None:
        metric = {"total": "issued_ios", "short": "short_ios", "dropped": "dropped_ios",
                  "drop": "dropped_ios"}[kind]
        if "mixed" in b.dirs_seen and "read" in counts:  # unified_rw_reporting counts all as one
            counts = {("mixed" if d == "read" else d): v for d, v in counts.items()}
        for direction, tok in counts.items():
            if not tok:
                continue
            value = float(tok)
            # Directions the job did not do print 0 here: skip them, as the JSON output does.
            if direction not in b.dirs_seen and not (kind == "total" and value > 0):
                continue
            if direction == "sync" and kind != "total":
                continue
            self.add(metric, value, lineno, tok, self._dir_params(ctx, direction))

    def _items(self, rest: str, required: tuple[str, ...], lineno: int, what: str) -> dict[str, str]:
        items = {k: v for k, v in _ITEM.findall(rest)}
        missing = [k for k in required if k not in items]
        if missing:
            raise ParseError(self.path, lineno,
                             f"{what}: expected {', '.join(k + '=' for k in required)} (missing {', '.join(missing)})")
        return items

    def _group_line(self, group: int | None, line: str, lineno: int) -> None:
        m = _GROUP_OLD.match(line)
        legacy = True
        if not m:
            m = _GROUP_NEW.match(line)
            legacy = False
        if not m:
            if re.match(r"^\s+(READ|WRITE|TRIM|MIXED):", line):
                raise ParseError(self.path, lineno, "group status line: expected io=, bw=/aggrb=, run=/mint= fields")
            return
        p = {"p_format": "text", "p_group": group, "p_direction": m.group("dir").lower(),
             "tool_version": self.version}
        path = self.path
        bw_key = "aggrb" if legacy else "bw"
        self.add("group_bandwidth", _bytes(m.group("bw"), legacy, path, lineno, bw_key), lineno,
                 f"{bw_key}={m.group('bw')}", p)
        for key, metric in (("minb", "group_bandwidth_min"), ("maxb", "group_bandwidth_max")):
            self.add(metric, _bytes(m.group(key), legacy, path, lineno, key), lineno,
                     (f"{key}=" if legacy else "") + m.group(key), p)
        self.add("group_io_bytes", _bytes(m.group("io"), legacy, path, lineno, "io"), lineno,
                 f"io={m.group('io')}", p)
        for key, metric in (("mint", "group_runtime_min"), ("maxt", "group_runtime_max")):
            self.add(metric, float(m.group(key)) / 1e3, lineno,
                     (f"{key}=" if legacy else "") + m.group(key) + "msec", p)

    def _disk_line(self, line: str, lineno: int) -> None:
        m = _DISK.match(line)
        if not m:
            return
        base = {"p_format": "text", "p_disk": m.group("disk"), "tool_version": self.version}
        items = _DISK_ITEM.findall(m.group("rest"))
        for key, first, second in items:
            aggr = key.startswith("aggr")
            name = _DISK_KEYS.get(key[4:] if aggr else key)
            if name is None:
                continue
            metric = ("disk_aggr_" if aggr else "disk_") + name
            scale = 1e-3 if name in ("ticks", "in_queue") else 1.0
            raw = f"{key}={first}" + (f"/{second}" if second else "")
            if second:
                for direction, tok in (("read", first), ("write", second)):
                    self.add(metric, _plain(tok, self.path, lineno, key) * scale, lineno, raw,
                             {**base, "p_direction": direction})
            else:
                self.add(metric, _plain(first, self.path, lineno, key) * scale, lineno, raw, base)

    # -- JSON -----------------------------------------------------------------------------------
    def _json(self, lines: list[str], offsets: list[int], start: int) -> int:
        """Decode the JSON document starting at line index ``start``; return its last line index."""
        # line numbers follow str.splitlines (as everywhere in this module), which also breaks at
        # a lone "\r" before the document (terminal progress lines), unlike JSONDecodeError.lineno
        try:
            doc, end = JSON_DECODER.raw_decode(self.text, offsets[start])
        except json.JSONDecodeError as exc:
            line = bisect.bisect_right(offsets, exc.pos) if exc.pos < len(self.text) else len(lines)
            raise ParseError(self.path, line, f"fio JSON output is broken or truncated: {exc.msg}") from None
        except RecursionError:
            raise ParseError(self.path, start + 1, "fio JSON output nests too deeply") from None
        last = bisect.bisect_right(offsets, end - 1) - 1
        if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
            raise ParseError(self.path, start + 1, "JSON document is not fio output (no \"jobs\" list)")
        self._new_run_if_needed("json")
        self.run_results.add("json")
        self.found = True
        where = json_line_map(lines, start, last)
        _JsonDoc(self, doc, where, start + 1).emit()
        return last


class _JsonDoc:
    """Rows from one fio JSON document."""

    def __init__(self, parser: _Parser, doc: dict, where: dict[tuple, int], first_line: int):
        self.p = parser
        self.doc = doc
        self.where = where
        self.first_line = first_line
        self.path = parser.path

    def line(self, *keys) -> int:
        keys = tuple(keys)
        while keys:
            if keys in self.where:
                return self.where[keys]
            keys = keys[:-1]
        return self.first_line

    def num(self, obj: dict, key: str, *where) -> JsonNumber | None:
        """A number from ``obj[key]``; None when absent or NaN; ParseError when not a number."""
        if not isinstance(obj, dict) or key not in obj or obj[key] is None:
            return None
        v = obj[key]
        if not isinstance(v, JsonNumber):
            raise ParseError(self.path, self.line(*where, key), f"JSON {key!r}: expected a number, found {v!r}")
        return v

    def add(self, metric: str, value: float, raw: JsonNumber | str, params: dict, *where) -> None:
        tok = raw.tok if isinstance(raw, JsonNumber) else raw
        self.p.add(metric, value, self.line(*where), tok, params)

    def emit(self) -> None:
        doc = self.doc
        version = doc.get("fio version")
        version = version[4:] if isinstance(version, str) and version.startswith("fio-") else (
            version if isinstance(version, str) else None)
        gopts = doc.get("global options") if isinstance(doc.get("global options"), dict) else {}
        jobs = doc["jobs"]
        names: dict[tuple, int] = {}
        for job in jobs:
            if isinstance(job, dict):
                k = (job.get("groupid"), job.get("jobname"))
                names[k] = names.get(k, 0) + 1
        for ji, job in enumerate(jobs):
            if not isinstance(job, dict):
                raise ParseError(self.path, self.line("jobs", ji), "JSON jobs[]: expected an object")
            self.job(ji, job, gopts, names, version)
        disks = doc.get("disk_util")
        if isinstance(disks, list):
            for di, disk in enumerate(disks):
                self.disk(di, disk, version)

    def job(self, ji: int, job: dict, gopts: dict, names: dict, version: str | None) -> None:
        w = ("jobs", ji)
        name = job.get("jobname")
        group = self.num(job, "groupid", *w)
        if not isinstance(name, str) or group is None:
            raise ParseError(self.path, self.line(*w), "JSON job: expected \"jobname\" and \"groupid\"")
        group = _small_int(group, self.path, self.line(*w, "groupid"), "groupid")
        jopts = job.get("job options") if isinstance(job.get("job options"), dict) else {}
        opts = {**gopts, **jopts}
        kb1000 = str(opts.get("kb_base", "")).strip() == "1000"
        options: dict = {}
        if isinstance(opts.get("rw"), str):
            options["rw"] = opts["rw"]
        if isinstance(opts.get("ioengine"), str):
            options["ioengine"] = opts["ioengine"]
        if isinstance(opts.get("iodepth"), str) and opts["iodepth"].strip().isdigit():
            options["iodepth"] = _small_int(opts["iodepth"], self.path, self.line(*w), "iodepth")
        if isinstance(opts.get("bs"), str):
            sizes = [_option_bytes(s, kb1000) for s in opts["bs"].split(",")]
            if sizes and all(s is not None for s in sizes):
                sizes = sizes + [sizes[-1]] * (3 - len(sizes)) if len(sizes) < 3 else sizes[:3]
                options["bs"] = dict(zip(_DIRS, sizes, strict=True))
        self.p.json_options.setdefault((group, name), options)
        numjobs = 1
        nj = opts.get("numjobs")
        if names.get((job.get("groupid"), name), 0) == 1 and isinstance(nj, str) and nj.strip().isdigit():
            numjobs = _small_int(nj, self.path, self.line(*w), "numjobs")
        desc = job.get("desc") if isinstance(job.get("desc"), str) else opts.get("description")
        error = self.num(job, "error", *w)
        ctx = self.p._context("json", group, name, numjobs=numjobs,
                              error=_small_int(error, self.path, self.line(*w, "error"), "error") if error is not None else None,
                              index=self.p._job_index("json", group, name),
                              description=desc if isinstance(desc, str) else None,
                              options=options, version=version)
        if isinstance(job.get("hostname"), str):
            ctx["host"] = job["hostname"]
        for direction in (*_DIRS, "mixed", "sync"):
            d = job.get(direction)
            if isinstance(d, dict):
                self.direction(w + (direction,), d, direction, ctx)
        self.job_level(w, job, ctx)

    def direction(self, w: tuple, d: dict, direction: str, ctx: dict) -> None:
        p = self.p._dir_params(ctx, direction)
        total = self.num(d, "total_ios", *w)
        io_bytes = self.num(d, "io_bytes", *w)
        if total is not None:
            if total == 0:
                return
        elif io_bytes is None or io_bytes == 0:
            return
        if total is not None:
            self.add("issued_ios", total, total, p, *w, "total_ios")
        for key, metric in (("short_ios", "short_ios"), ("drop_ios", "dropped_ios")):
            v = self.num(d, key, *w)
            if v is not None:
                self.add(metric, v, v, p, *w, key)
        if "io_kbytes" in d and io_bytes is not None:  # 3.x; older io_bytes were KiB
            self.add("io_bytes", io_bytes, io_bytes, p, *w, "io_bytes")
        bw = self.num(d, "bw_bytes", *w)
        if bw is not None:
            self.add("bandwidth", bw, bw, p, *w, "bw_bytes")
        else:
            bw = self.num(d, "bw", *w)
            if bw is not None:
                self.add("bandwidth", bw * 1024.0, bw, p, *w, "bw")
        for key, metric, scale in (("iops", "iops", 1.0), ("runtime", "runtime", 1e-3)):
            v = self.num(d, key, *w)
            if v is not None:
                self.add(metric, v * scale, v, p, *w, key)
        for kind in ("slat", "clat", "lat"):
            for key, scale in ((f"{kind}_ns", 1e-9), (kind, 1e-6)):
                stats = d.get(key)
                if isinstance(stats, dict):
                    self.latency(w + (key,), stats, kind, scale, p)
                    break
        samples = self.num(d, "bw_samples", *w)
        bw_max = self.num(d, "bw_max", *w)
        if (samples is not None and samples > 0) or (samples is None and bw_max is not None and bw_max > 0):
            for key, metric, scale in (("bw_min", "bandwidth_interval_min", 1024.0),
                                       ("bw_max", "bandwidth_interval_max", 1024.0),
                                       ("bw_mean", "bandwidth_interval_mean", 1024.0),
                                       ("bw_dev", "bandwidth_interval_sd", 1024.0),
                                       ("bw_agg", "bandwidth_share", 1.0),
                                       ("bw_samples", "bandwidth_interval_samples", 1.0)):
                v = self.num(d, key, *w)
                if v is not None:
                    self.add(metric, v * scale, v, p, *w, key)
        isamples = self.num(d, "iops_samples", *w)
        if isamples is not None and isamples > 0:
            for key, metric in (("iops_min", "iops_interval_min"), ("iops_max", "iops_interval_max"),
                                ("iops_mean", "iops_interval_mean"), ("iops_stddev", "iops_interval_sd"),
                                ("iops_samples", "iops_interval_samples")):
                v = self.num(d, key, *w)
                if v is not None:
                    self.add(metric, v, v, p, *w, key)

    def latency(self, w: tuple, stats: dict, kind: str, scale: float, p: dict) -> None:
        n = self.num(stats, "N", *w)
        if n is not None and n == 0:
            return
        for key, stat in (("min", "min"), ("max", "max"), ("mean", "mean"), ("stddev", "sd")):
            v = self.num(stats, key, *w)
            if v is not None:
                self.add(f"{kind}_{stat}", v * scale, v, p, *w, key)
        pct = stats.get("percentile")
        if isinstance(pct, dict):
            for key in pct:
                v = self.num(pct, key, *w, "percentile")
                if v is None:
                    continue
                try:
                    level = float(key)
                except ValueError:
                    raise ParseError(self.path, self.line(*w, "percentile", key),
                                     f"JSON percentile key {key!r}: expected a number") from None
                if not math.isfinite(level):
                    raise ParseError(self.path, self.line(*w, "percentile", key),
                                     f"JSON percentile key {key!r}: expected a finite number")
                self.add(f"{kind}_percentile", v * scale, v, {**p, "p_percentile": level},
                         *w, "percentile", key)
        bins = stats.get("bins")
        if isinstance(bins, dict):
            for key in bins:
                v = self.num(bins, key, *w, "bins")
                if v is None:
                    continue
                if not key.isdigit():
                    raise ParseError(self.path, self.line(*w, "bins", key),
                                     f"JSON bins key {key!r}: expected a latency in integer units")
                self.add(f"{kind}_bin_count", v, v, {**p, "p_latency": _small_int(key, self.path, self.line(*w, "bins", key), "bin") * scale},
                         *w, "bins", key)

    def job_level(self, w: tuple, job: dict, ctx: dict) -> None:
        p = self.p._dir_params(ctx, None)
        for key, metric in (("usr_cpu", "cpu_usr"), ("sys_cpu", "cpu_sys"), ("ctx", "context_switches"),
                            ("majf", "major_faults"), ("minf", "minor_faults")):
            v = self.num(job, key, *w)
            if v is not None:
                self.add(metric, v, v, p, *w, key)
        levels = job.get("iodepth_level")
        if isinstance(levels, dict):
            for key in levels:
                v = self.num(levels, key, *w, "iodepth_level")
                m = re.fullmatch(r"(>=)?(\d+)", key)
                if v is None or not m:
                    continue
                self.add("iodepth_share", v, v, {**p, "p_depth": _small_int(m.group(2), self.path, self.line(*w, "iodepth_level", key), "depth")},
                         *w, "iodepth_level", key)
        for key, scale in (("latency_ns", 1e-9), ("latency_us", 1e-6), ("latency_ms", 1e-3)):
            buckets = job.get(key)
            if not isinstance(buckets, dict):
                continue
            for bound in buckets:
                v = self.num(buckets, bound, *w, key)
                m = re.fullmatch(r"(>=)?(\d+)", bound)
                # the text report leaves out empty buckets; so do we, for the same rows
                if v is None or not m or v == 0:
                    continue
                extra = {"p_ge" if m.group(1) else "p_le":
                         _small_int(m.group(2), self.path, self.line(*w, key, bound), "bound") * scale}
                self.add("lat_bucket", v, v, {**p, **extra}, *w, key, bound)

    def disk(self, di: int, disk, version: str | None) -> None:
        w = ("disk_util", di)
        if not isinstance(disk, dict) or not isinstance(disk.get("name"), str):
            raise ParseError(self.path, self.line(*w), "JSON disk_util[]: expected an object with a name")
        base = {"p_format": "json", "p_disk": disk["name"], "tool_version": version}
        for key in disk:
            m = re.fullmatch(r"(aggr_)?(?:(read|write)_)?(ios|merges?|sectors|ticks|in_queue|util)", key)
            if not m or (m.group(2) is None) != (m.group(3) in ("in_queue", "util")):
                continue
            v = self.num(disk, key, *w)
            if v is None:
                continue
            name = "merges" if m.group(3).startswith("merge") else m.group(3)
            metric = ("disk_aggr_" if m.group(1) else "disk_") + name
            scale = 1e-3 if name in ("ticks", "in_queue") else 1.0
            params = dict(base)
            if m.group(2):
                params["p_direction"] = m.group(2)
            self.add(metric, v * scale, v, params, *w, key)


# ---------------------------------------------------------------------------------------------
def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse fio text and/or JSON output into tidy rows (see the module docstring).

    Parameters: text, the whole output; path, used in ``source`` and in errors.
    Raises ParseError when the text holds no fio report, a known line is malformed, or a JSON
    document is truncated (naming the line where the JSON broke).
    """
    parser = _Parser(text, path)
    parser.parse()
    if not parser.found:
        raise ParseError(path, 1, "no fio output found (no '<job>: (groupid=N, jobs=N)' report, "
                                  "'Run status group' or JSON document with \"jobs\")")
    return frame(parser.rows)


def latency_bins(text: str, path: str = "<string>") -> pd.DataFrame:
    """The json+ latency histograms of ``text`` as an ECDF table.

    Returns one row per non-empty bin, sorted, with columns ``job``, ``direction``,
    ``latency_s`` (the bin's representative latency, s), ``count`` (I/Os in the bin), ``ecdf``
    (fraction 0..1 of that histogram's I/Os with latency <= latency_s), and ``group``,
    ``job_index``, ``trial``, ``kind`` (clat, or lat/slat when fio dumped those) and ``source``
    to tell histograms apart. Raises ParseError when the output has no json+ bins.
    """
    df = parse(text, path)
    bins = df[df["metric"].str.endswith("_bin_count")]
    if bins.empty:
        raise ParseError(path, None, "no json+ latency bins (run fio with --output-format=json+)")
    out = pd.DataFrame({
        "job": bins["p_job"].astype("string"),
        "direction": bins["p_direction"].astype("string"),
        "latency_s": bins["p_latency"].astype("float64"),
        "count": bins["value"].astype("int64"),
        "group": bins["p_group"].astype("Int64"),
        "job_index": bins["p_job_index"].astype("Int64"),
        "trial": bins["trial"].astype("Int64"),
        "kind": bins["metric"].str.removesuffix("_bin_count").astype("string"),
        "source": bins["source"],
    })
    keys = ["trial", "group", "job", "job_index", "direction", "kind"]
    out = out.sort_values([*keys, "latency_s"], kind="stable").reset_index(drop=True)
    cum = out.groupby(keys, sort=False, dropna=False)["count"].cumsum()
    total = out.groupby(keys, sort=False, dropna=False)["count"].transform("sum")
    out.insert(4, "ecdf", cum / total)
    return out
