"""fio's human-readable ("normal") report, as fio 2.x and 3.x print it.

:class:`TextReader` reads it line by line. Outside a job report, a line is a job line
(``name: (g=0): rw=..., bs=...``), a version line, a job report header
(``name: (groupid=N, jobs=N): err= 0``), a ``Run status group N`` header or the ``Disk stats``
header; inside a report, each kind of line (direction summary, latency statistics,
percentiles, bandwidth and IOPS intervals, latency buckets, CPU, IO depths, issued I/Os) has a
pattern and a handler in :data:`_BLOCK_LINES`, tried in order. See :mod:`overhead.parsers.fio`
for the rows and units.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from overhead.parsers._common import ParseError, percent, si_number, size_bytes
from overhead.parsers.fio._run import DIRS, Run, small_int

_LAT_SCALE = {"nsec": 1e-9, "usec": 1e-6, "msec": 1e-3}
_NAN_TOKENS = {"nan", "-nan", "inf", "-inf", "n/a"}

# lines outside job reports
_JOBDEF = re.compile(r"^(?P<name>.*?): \(g=(?P<g>\d+)\): rw=(?P<rw>[^,]+), bs=(?P<bs>.+?), "
                     r"ioengine=(?P<eng>[^,]+), iodepth=(?P<qd>\d+)\s*$")
_VERSION = re.compile(r"^(?:fio-(?P<v3>\d+\.\d+\S*)|(?P<v2>\d+\.\d+\.\d+))\s*$")
_HEADER = re.compile(r"^(?P<name>.*?): \(groupid=(?P<g>\d+), jobs=(?P<n>\d+)\): "
                     r"err=\s*(?P<err>-?\d+)")
_GROUP = re.compile(r"^Run status group (?P<g>\d+) \(all jobs\):\s*$")
_DISK_HEAD = re.compile(r"^Disk stats \(read/write\):\s*$")
_STARTING = re.compile(r"^Starting \d+ (?:process|thread)(?:es|s)?(?: and \d+ (?:process|thread)(?:es|s)?)?\s*$")
# fio's own messages ("fio: io_u error on file ...", "fio: pid=N, err=28/...", "fio: terminating
# on signal 2"); "fio: note: ..." warnings are not failures
_MESSAGE = re.compile(r"^fio: (?!note\b)\S.*$")
_SIGNAL = re.compile(r"^fio: terminating on signal \d+\s*$")
# lines of a job report
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
# lines of a group or disk section
_GROUP_OLD = re.compile(r"^\s+(?P<dir>READ|WRITE|TRIM|MIXED): io=(?P<io>\S+), aggrb=(?P<bw>\S+), "
                        r"minb=(?P<minb>\S+), maxb=(?P<maxb>\S+), mint=(?P<mint>\d+)msec, "
                        r"maxt=(?P<maxt>\d+)msec\s*$")
_GROUP_NEW = re.compile(r"^\s+(?P<dir>READ|WRITE|TRIM|MIXED): bw=(?P<bw>\S+) \([^)]*\), "
                        r"(?P<minb>[^-\s]+)-(?P<maxb>[^\s(]+) \([^)]*\), io=(?P<io>\S+) \([^)]*\), "
                        r"run=(?P<mint>\d+)-(?P<maxt>\d+)msec\s*$")
_DISK = re.compile(r"^\s+(?P<disk>\S+): (?P<rest>ios=.*)$")
_DISK_ITEM = re.compile(r"(\w+)=([0-9.]+%?)(?:/([0-9.]+))?")
_DISK_KEYS = {"ios": "ios", "merge": "merges", "sectors": "sectors", "ticks": "ticks",
              "in_queue": "in_queue", "util": "util"}
_ISSUED_METRICS = {"total": "issued_ios", "short": "short_ios", "dropped": "dropped_ios",
                   "drop": "dropped_ios"}


def _is_nan(token: str) -> bool:
    """Tell whether fio printed ``token`` for a value it has not got (nan, inf, n/a)."""
    return token.strip().lower() in _NAN_TOKENS


def _rate_scale(unit: str, legacy: bool, kb1000: bool, path: str, line: int) -> float:
    """Give the bytes/s per printed unit of a ``bw (KiB/s)`` interval line.

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


def _bs_from_jobdef(bs: str, legacy: bool, path: str, line: int) -> dict[str, float | None]:
    """Read the fixed block size per direction from a job line's ``bs=`` part.

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
        for d, part in zip(DIRS, bs.split("/"), strict=False):
            lo, _, hi = part.partition("-")
            pairs.append((d, lo, hi or lo))
    for d, lo, hi in pairs:
        a = size_bytes(lo, path, line, "bs", binary=legacy)
        b = size_bytes(hi, path, line, "bs", binary=legacy)
        out[d] = a if a == b and a < 2**53 else None
    return out


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


# A handler returns _PASS when the line is not its after all (the next pattern is tried).
_PASS = object()


class TextReader:
    """Read the text report of ``run``'s output line by line (see :meth:`line`).

    Parameters
    ----------
    run : Run
        The parse state the rows go to.
    """

    def __init__(self, run: Run):
        self.run = run
        self.path = run.path
        self.block: _Block | None = None  # the job report being read
        self.ctx: dict = {}  # its parameters (Run.context)
        self.section: str | None = None  # "group" or "disk" outside job reports
        self.group: int | None = None

    def reset(self) -> None:
        """Forget the open job report or section (a JSON document came in between)."""
        self.block, self.section = None, None

    def line(self, line: str, lineno: int) -> None:
        """Read one complete line (without its terminator).

        Parameters
        ----------
        line : str
            The line.
        lineno : int
            Its 1-based number.

        Raises
        ------
        ParseError
            When a line of a known kind is malformed.
        """
        for pattern, handler in _TOP_LINES:
            m = pattern.match(line)
            if m:
                handler(self, m, lineno)
                return
        if self.block is not None:
            for pattern, handler in _BLOCK_LINES:
                m = pattern.match(line)
                if m and handler(self, self.block, m, lineno) is not _PASS:
                    return
        elif self.section == "group":
            self._group_line(line, lineno)
        elif self.section == "disk":
            self._disk_line(line, lineno)

    # -- lines outside job reports ------------------------------------------------------------
    def _on_jobdef(self, m: re.Match, lineno: int) -> None:
        """Handle a job line: ``name: (g=0): rw=..., bs=..., ioengine=..., iodepth=...``."""
        run = self.run
        run.new_run_if_needed()
        self.reset()
        legacy = "(R)" not in m.group("bs") and "(W)" not in m.group("bs")
        run.started = True
        key = (small_int(m.group("g"), self.path, lineno, "g="), m.group("name"))
        run.jobdefs[key] = {
            "rw": m.group("rw").strip(), "ioengine": m.group("eng").strip(),
            "iodepth": small_int(m.group("qd"), self.path, lineno, "iodepth"),
            "bs": _bs_from_jobdef(m.group("bs"), legacy, self.path, lineno)}

    def _on_version(self, m: re.Match, lineno: int) -> None:
        """Handle a version line (``fio-3.33`` or 2.x's bare ``2.0.8``)."""
        self.run.new_run_if_needed()
        self.run.version = m.group("v3") or m.group("v2")
        if m.group("v3"):
            self.run.started = True

    def _on_starting(self, m: re.Match, lineno: int) -> None:
        """Handle ``Starting 1 process`` (fio's header says the jobs started)."""
        self.run.started = True

    def _on_message(self, m: re.Match, lineno: int) -> None:
        """Handle a ``fio: ...`` message; ``fio: terminating on signal N`` interrupts the run.

        A run fio stopped on a signal did not run as configured: its summaries, printed after
        this line, measure a cut run (a 10 s job stopped at 1.7 s). They are kept, and the
        frame is marked cut short with this line (see the module docstring).
        """
        text = m.string.strip()
        self.run.messages.append((lineno, text))
        if _SIGNAL.match(text) and self.run.interrupted is None:
            self.run.interrupted = (lineno, text)

    def _on_header(self, m: re.Match, lineno: int) -> None:
        """Handle a job report header: ``name: (groupid=N, jobs=N): err= 0: ...``."""
        run = self.run
        if run.trial == 0:
            run.new_run_if_needed()
        self.section = None
        g, name = small_int(m.group("g"), self.path, lineno, "groupid"), m.group("name")
        self.block = _Block(name=name, group=g,
                            numjobs=small_int(m.group("n"), self.path, lineno, "jobs"),
                            error=small_int(m.group("err"), self.path, lineno, "err"),
                            index=run.job_index("text", g, name))
        self.ctx = self._block_context(self.block)
        run.run_results.add("text")
        run.open_groups.setdefault(g, lineno)  # closed by its "Run status group" lines
        if self.block.error != 0:
            # a job that stopped on an error: its figures cover what it did before failing
            run.fail(lineno, m.string.strip())

    def _on_group(self, m: re.Match, lineno: int) -> None:
        """Handle ``Run status group N (all jobs):``."""
        run = self.run
        if run.trial == 0:
            run.new_run_if_needed()
        self.block, self.section = None, "group"
        self.group = small_int(m.group("g"), self.path, lineno, "group")
        run.run_results.add("text")
        run.found = True

    def _on_disk_head(self, m: re.Match, lineno: int) -> None:
        """Handle ``Disk stats (read/write):``."""
        if self.run.trial == 0:
            self.run.new_run_if_needed()
        self.block, self.section = None, "disk"
        self.run.disk_head = lineno  # its device lines follow

    def _block_context(self, block: _Block) -> dict:
        """Collect the parameters of ``block``'s rows (Run.context)."""
        # fio writes a job line to the terminal, not to --output, when it parses the job before
        # --output; the same run's JSON options (json,normal output) then fill in.
        return self.run.context("text", block.group, block.name, numjobs=block.numjobs,
                                error=block.error, index=block.index,
                                description=block.description,
                                options=self.run.json_options.get((block.group, block.name)))

    # -- lines of a job report ----------------------------------------------------------------
    def _need_direction(self, b: _Block, lineno: int, what: str) -> None:
        """Raise ParseError unless a read/write/trim line came before this ``what``."""
        if b.direction is None:
            raise ParseError(self.path, lineno, f"{what} before any read/write/trim line")

    def _items(self, rest: str, required: tuple[str, ...], lineno: int, what: str) -> dict[str, str]:
        """Read the ``key=value`` items of a line, requiring ``required`` among them."""
        items = {k: v for k, v in _ITEM.findall(rest)}
        missing = [k for k in required if k not in items]
        if missing:
            raise ParseError(self.path, lineno,
                             f"{what}: expected {', '.join(k + '=' for k in required)} (missing {', '.join(missing)})")
        return items

    def _on_description(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle ``Description : [...]``."""
        b.description = m.group("d")
        self.ctx = self._block_context(b)

    def _on_direction_old(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle a 2.x direction line: ``read : io=13765MB, bw=234919KB/s, iops=58729 , runt= 60001msec``."""
        path, add = self.path, self.run.add
        b.legacy, b.direction, b.pct = True, m.group("dir"), None
        b.dirs_seen.append(b.direction)
        p = Run.dir_params(self.ctx, b.direction)
        add("io_bytes", size_bytes(m.group("io"), path, lineno, "io"), lineno,
            f"io={m.group('io')}", p)
        add("bandwidth", size_bytes(m.group("bw"), path, lineno, "bw"), lineno,
            f"bw={m.group('bw')}", p)
        add("iops", si_number(m.group("iops"), path, lineno, "iops"), lineno,
            f"iops={m.group('iops')}", p)
        add("runtime", float(m.group("runt")) / 1e3, lineno, f"runt={m.group('runt')}msec", p)

    def _on_direction_new(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle a 3.x direction line: ``read: IOPS=12.4k, BW=48.5MiB/s (50.9MB/s)(...)``."""
        path, add = self.path, self.run.add
        b.legacy, b.direction, b.pct = False, m.group("dir"), None
        b.kb1000 = bool(re.search(r"i(?:B|bit)/s", m.group("bw2")))
        b.dirs_seen.append(b.direction)
        p = Run.dir_params(self.ctx, b.direction)
        add("iops", si_number(m.group("iops"), path, lineno, "IOPS"), lineno,
            f"IOPS={m.group('iops')}", p)
        add("bandwidth", size_bytes(m.group("bw"), path, lineno, "BW", binary=False), lineno,
            f"BW={m.group('bw')}", p)
        add("io_bytes", size_bytes(m.group("io"), path, lineno, "io", binary=False), lineno,
            m.group("io"), p)
        add("runtime", float(m.group("runt")) / 1e3, lineno, f"{m.group('runt')}msec", p)

    def _on_sync(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle ``fsync/fdatasync/sync_file_range:`` (the sync latencies follow)."""
        b.direction, b.pct = "sync", None

    def _on_stats(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle a latency line: ``clat (usec): min=70 , max=1163 , avg=260.52, stdev=40.47``."""
        self._need_direction(b, lineno, "latency line")
        kind = "lat" if m.group("kind") == "sync" else m.group("kind")
        scale = _LAT_SCALE[m.group("unit")]
        items = self._items(m.group("rest"), ("min", "max", "avg", "stdev"), lineno, f"{kind} line")
        p = Run.dir_params(self.ctx, b.direction)
        for key, stat in (("min", "min"), ("max", "max"), ("avg", "mean"), ("stdev", "sd")):
            tok = items[key]
            if _is_nan(tok):
                continue
            self.run.add(f"{kind}_{stat}", si_number(tok, self.path, lineno, f"{kind} {key}") * scale,
                         lineno, f"{key}={tok}", p)
        b.pct = None

    def _on_percentile_head(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle ``clat percentiles (usec):`` (the percentile lines follow)."""
        self._need_direction(b, lineno, "percentiles")
        kind = "lat" if m.group("kind") == "sync" else m.group("kind")
        b.pct = (kind, m.group("unit"))

    def _on_percentiles(self, b: _Block, m: re.Match, lineno: int):
        """Handle a percentile line: ``|  1.00th=[  189],  5.00th=[  205], ...``."""
        if b.pct is None:
            return _PASS
        path = self.path
        items = _PCT_ITEM.findall(m.group("rest"))
        leftover = _PCT_ITEM.sub("", m.group("rest")).replace(",", "").strip()
        if not items or leftover:
            raise ParseError(path, lineno, "percentile line: expected items like '50.00th=[  258]'")
        kind, unit = b.pct
        p = Run.dir_params(self.ctx, b.direction)
        for pct, tok in items:
            if _is_nan(tok):
                continue
            value = si_number(tok, path, lineno, "percentile") * _LAT_SCALE[unit]
            self.run.add(f"{kind}_percentile", value, lineno, tok,
                         {**p, "p_percentile": percent(pct, path, lineno, "percentile")})
        return None

    def _on_bandwidth(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle a bandwidth interval line: ``bw (KB/s)  : min=224376, max=241680, per=100.00%, ...``."""
        self._need_direction(b, lineno, "bw line")
        path, add = self.path, self.run.add
        scale = _rate_scale(m.group("unit"), bool(b.legacy), b.kb1000, path, lineno)
        items = self._items(m.group("rest"), ("min", "max", "avg", "stdev"), lineno, "bw line")
        p = Run.dir_params(self.ctx, b.direction)
        for key, metric in (("min", "bandwidth_interval_min"), ("max", "bandwidth_interval_max"),
                            ("avg", "bandwidth_interval_mean"), ("stdev", "bandwidth_interval_sd")):
            tok = items[key]
            if not _is_nan(tok):
                add(metric, percent(tok, path, lineno, f"bw {key}") * scale, lineno,
                    f"{key}={tok}", p)
        if "per" in items and not _is_nan(items["per"]):
            add("bandwidth_share", percent(items["per"], path, lineno, "bw per"), lineno,
                f"per={items['per']}", p)
        if "samples" in items:
            add("bandwidth_interval_samples", percent(items["samples"], path, lineno, "bw samples"),
                lineno, f"samples={items['samples']}", p)
        b.pct = None

    def _on_iops(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle a 3.x IOPS interval line: ``iops : min= 9446, max=13530, avg=12441.20, ...``."""
        self._need_direction(b, lineno, "iops line")
        items = self._items(m.group("rest"), ("min", "max", "avg", "stdev"), lineno, "iops line")
        p = Run.dir_params(self.ctx, b.direction)
        for key, metric in (("min", "iops_interval_min"), ("max", "iops_interval_max"),
                            ("avg", "iops_interval_mean"), ("stdev", "iops_interval_sd"),
                            ("samples", "iops_interval_samples")):
            tok = items.get(key)
            if tok is not None and not _is_nan(tok):
                self.run.add(metric, percent(tok, self.path, lineno, f"iops {key}"), lineno,
                             f"{key}={tok}", p)

    def _on_buckets(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle a latency distribution line: ``lat (usec) : 100=0.01%, 250=39.79%, ...``."""
        path = self.path
        scale = _LAT_SCALE[m.group("unit")]
        items = _BUCKET_ITEM.findall(m.group("rest"))
        if not items or _BUCKET_ITEM.sub("", m.group("rest")).replace(",", "").strip():
            raise ParseError(path, lineno, "latency distribution: expected items like '250=39.79%'")
        p = Run.dir_params(self.ctx, None)
        for ge, bound, tok in items:
            if not tok.endswith("%"):
                raise ParseError(path, lineno, f"latency distribution: expected a percentage, found {tok!r}")
            key = "p_ge" if ge else "p_le"
            self.run.add("lat_bucket", percent(tok, path, lineno, "latency share"), lineno, tok,
                         {**p, key: small_int(bound, path, lineno, "latency bound") * scale})
        b.pct = None

    def _on_cpu(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle the CPU line: ``cpu : usr=5.02%, sys=16.22%, ctx=...``."""
        items = self._items(m.group("rest"), ("usr", "sys"), lineno, "cpu line")
        p = Run.dir_params(self.ctx, None)
        for key, metric in (("usr", "cpu_usr"), ("sys", "cpu_sys"), ("ctx", "context_switches"),
                            ("majf", "major_faults"), ("minf", "minor_faults")):
            tok = items.get(key)
            if tok is not None and not _is_nan(tok):
                self.run.add(metric, percent(tok, self.path, lineno, f"cpu {key}"), lineno,
                             f"{key}={tok}", p)
        b.pct = None

    def _on_depths(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle the IO depths line: ``IO depths : 1=100.0%, 2=0.0%, ...``."""
        path = self.path
        items = _BUCKET_ITEM.findall(m.group("rest"))
        if not items:
            raise ParseError(path, lineno, "IO depths: expected items like '16=100.0%'")
        p = Run.dir_params(self.ctx, None)
        for _ge, depth, tok in items:
            if not tok.endswith("%"):
                raise ParseError(path, lineno, f"IO depths: expected a percentage, found {tok!r}")
            self.run.add("iodepth_share", percent(tok, path, lineno, "IO depth share"), lineno, tok,
                         {**p, "p_depth": small_int(depth, path, lineno, "IO depth")})

    def _on_issued_old(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle 2.x ``issued : total=r=.../w=.../d=..., short=r=...``."""
        for kind, r, w, t in re.findall(r"(total|short|drop)=r=(\d+)/w=(\d+)(?:/d=(\d+))?",
                                        m.group("rest")):
            self._issued(b, kind, dict(zip(DIRS, (r, w, t), strict=True)), lineno)

    def _on_issued_new(self, b: _Block, m: re.Match, lineno: int) -> None:
        """Handle 3.x ``issued rwts: total=...,...,...,... short=... dropped=...``."""
        for kind, values in re.findall(r"(total|short|dropped)=([0-9,]+)", m.group("rest")):
            counts = [v for v in values.split(",") if v]
            self._issued(b, kind, dict(zip((*DIRS, "sync"), counts, strict=False)), lineno)

    def _issued(self, b: _Block, kind: str, counts: dict, lineno: int) -> None:
        """Add the issued/short/dropped I/O counts of the directions the job did."""
        metric = _ISSUED_METRICS[kind]
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
            self.run.add(metric, value, lineno, tok, Run.dir_params(self.ctx, direction))

    # -- group and disk sections --------------------------------------------------------------
    def _group_line(self, line: str, lineno: int) -> None:
        """Read a line of a ``Run status group`` section (one per direction)."""
        m = _GROUP_OLD.match(line)
        legacy = True
        if not m:
            m = _GROUP_NEW.match(line)
            legacy = False
        if not m:
            if re.match(r"^\s+(READ|WRITE|TRIM|MIXED):", line):
                raise ParseError(self.path, lineno, "group status line: expected io=, bw=/aggrb=, run=/mint= fields")
            return
        self.run.open_groups.pop(self.group, None)
        p = {"p_format": "text", "p_group": self.group, "p_direction": m.group("dir").lower(),
             "tool_version": self.run.version}
        path, add = self.path, self.run.add
        bw_key = "aggrb" if legacy else "bw"
        add("group_bandwidth", size_bytes(m.group("bw"), path, lineno, bw_key, binary=legacy),
            lineno, f"{bw_key}={m.group('bw')}", p)
        for key, metric in (("minb", "group_bandwidth_min"), ("maxb", "group_bandwidth_max")):
            add(metric, size_bytes(m.group(key), path, lineno, key, binary=legacy), lineno,
                (f"{key}=" if legacy else "") + m.group(key), p)
        add("group_io_bytes", size_bytes(m.group("io"), path, lineno, "io", binary=legacy), lineno,
            f"io={m.group('io')}", p)
        for key, metric in (("mint", "group_runtime_min"), ("maxt", "group_runtime_max")):
            add(metric, float(m.group(key)) / 1e3, lineno,
                (f"{key}=" if legacy else "") + m.group(key) + "msec", p)

    def _disk_line(self, line: str, lineno: int) -> None:
        """Read a line of the ``Disk stats`` section (one per device)."""
        self.run.disk_head = None
        m = _DISK.match(line)
        if not m:
            return
        base = {"p_format": "text", "p_disk": m.group("disk"), "tool_version": self.run.version}
        for key, first, second in _DISK_ITEM.findall(m.group("rest")):
            aggr = key.startswith("aggr")
            name = _DISK_KEYS.get(key[4:] if aggr else key)
            if name is None:
                continue
            metric = ("disk_aggr_" if aggr else "disk_") + name
            scale = 1e-3 if name in ("ticks", "in_queue") else 1.0
            raw = f"{key}={first}" + (f"/{second}" if second else "")
            if second:
                for direction, tok in (("read", first), ("write", second)):
                    self.run.add(metric, percent(tok, self.path, lineno, key) * scale, lineno, raw,
                                 {**base, "p_direction": direction})
            else:
                self.run.add(metric, percent(first, self.path, lineno, key) * scale, lineno, raw,
                             base)


#: Lines outside a job report's body, tried first on every line: (pattern, handler).
_TOP_LINES = (
    (_JOBDEF, TextReader._on_jobdef),
    (_VERSION, TextReader._on_version),
    (_HEADER, TextReader._on_header),
    (_GROUP, TextReader._on_group),
    (_DISK_HEAD, TextReader._on_disk_head),
    (_STARTING, TextReader._on_starting),
    (_MESSAGE, TextReader._on_message),
)

#: Lines of a job report, tried in this order: (pattern, handler). A handler that returns
#: _PASS declines the line and the next pattern is tried.
_BLOCK_LINES = (
    (_DESC, TextReader._on_description),
    (_DIR_OLD, TextReader._on_direction_old),
    (_DIR_NEW, TextReader._on_direction_new),
    (_SYNC, TextReader._on_sync),
    (_STATS, TextReader._on_stats),
    (_PCT_HEAD, TextReader._on_percentile_head),
    (_PCT_LINE, TextReader._on_percentiles),
    (_BW, TextReader._on_bandwidth),
    (_IOPS, TextReader._on_iops),
    (_BUCKETS, TextReader._on_buckets),
    (_CPU, TextReader._on_cpu),
    (_DEPTHS, TextReader._on_depths),
    (_ISSUED_OLD, TextReader._on_issued_old),
    (_ISSUED_NEW, TextReader._on_issued_new),
)
