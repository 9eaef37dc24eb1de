"""What the text and JSON readers of fio output share: the metric table and the parse state.

One fio output file may hold several runs (``trial``) and mix formats (``--output-format=
json,normal`` writes a JSON document and then the text report of the same run), so both
readers add their rows through one :class:`Run`, which numbers the runs and keeps what a run's
job lines or JSON options said about each job.
"""

from __future__ import annotations

import math
import re

from overhead.parsers._common import ParseError, Rows, integer

TOOL = "fio"
BENCHMARK = "fio"

DIRS = ("read", "write", "trim")

#: metric -> (unit, higher_is_better)
METRICS: dict[str, tuple[str, bool | None]] = {
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
        METRICS[f"{_kind}_{_stat}"] = ("s", False)
    METRICS[f"{_kind}_sd"] = ("s", None)
    METRICS[f"{_kind}_percentile"] = ("s", False)
    METRICS[f"{_kind}_bin_count"] = ("count", None)
for _prefix in ("disk_", "disk_aggr_"):
    for _name, _unit in (("ios", "count"), ("merges", "count"), ("sectors", "count"),
                         ("ticks", "s"), ("in_queue", "s"), ("util", "%")):
        METRICS[_prefix + _name] = (_unit, None)


def small_int(token, path: str, line: int, what: str) -> int:
    """Read an integer parameter (group id, job count, depth) that is exact as a float.

    Parameters
    ----------
    token : str or float
        The number as printed (or a JSON number).
    path, line, what
        Where it was read and what it is, for the error message.

    Returns
    -------
    int
        The value.

    Raises
    ------
    ParseError
        When ``token`` is not an integer or its absolute value is 2**53 or more.
    """
    return integer(token, path, line, what, limit=2**53)


class Run:
    """The state of one parse: the rows, the run (trial) in progress and what it said.

    Parameters
    ----------
    text : str
        The whole output.
    path : str
        Its name, used in ``source`` and in errors.
    """

    def __init__(self, text: str, path: str):
        self.text = text
        self.path = path
        self.rows = Rows(path, benchmark=BENCHMARK, tool=TOOL)
        self.trial = 0
        self.run_results: set[str] = set()  # formats that produced results in this run
        self.jobdefs: dict[tuple[int, str], dict] = {}  # (group, job) -> its job line's options
        self.json_options: dict[tuple[int, str], dict] = {}  # options a JSON report stated
        self.version: str | None = None
        self.found = False  # saw any fio result
        self.index_counts: dict[tuple, int] = {}
        self.trial_start = 0  # first row of the run in progress
        self.started = False  # saw fio's own header (a job line, "fio-3.33", "Starting N process")
        self.messages: list[tuple[int, str]] = []  # fio's "fio: ..." lines: (line, text)
        self.failures: list[tuple[int, str]] = []  # failed jobs: (line, what)
        self.interrupted: tuple[int, str] | None = None  # "fio: terminating on signal N"
        #: text job reports' groups whose "Run status group" lines were not read yet: line
        self.open_groups: dict[int, int] = {}
        self.disk_head: int | None = None  # a "Disk stats" header without its device lines yet

    def fail(self, line: int, what: str) -> None:
        """Record that the run failed at ``line`` (a job with err != 0, a fatal signal).

        Parameters
        ----------
        line : int
            The line that shows the failure.
        what : str
            What it shows (fio's own words).
        """
        self.failures.append((line, what))

    def message(self, err: int) -> tuple[int, str] | None:
        """Find fio's ``fio: pid=N, err=<err>/...`` line for error ``err`` (None: not printed)."""
        for line, text in self.messages:
            if re.match(rf"fio: pid=\d+, err={err}/", text):
                return line, text
        return None

    def new_run_if_needed(self, fmt: str | None = None) -> None:
        """Start a new run (trial) when the current one already has results (in ``fmt``).

        Parameters
        ----------
        fmt : str, optional
            ``json`` or ``text``: only results in that format end the run; by default any.
        """
        if self.trial == 0 or (self.run_results and (fmt is None or fmt in self.run_results)):
            self.end_trial()
            self.trial += 1
            self.run_results = set()
            self.jobdefs = {}
            self.json_options = {}
            self.version = None
            self.index_counts = {}

    def end_trial(self) -> None:
        """Give the rows of the run in progress their ``trial`` number."""
        self.rows.fill("trial", self.trial or None, self.trial_start)
        self.trial_start = len(self.rows)

    def job_index(self, fmt: str, group: int, name: str) -> int:
        """Count the reports of job ``name`` in ``group`` (in format ``fmt``) so far.

        Parameters
        ----------
        fmt : str
            ``json`` or ``text``.
        group : int
            The job's group id.
        name : str
            The job's name.

        Returns
        -------
        int
            1 for the first report of that job in this run, 2 for the next...
        """
        key = (fmt, group, name)
        self.index_counts[key] = self.index_counts.get(key, 0) + 1
        return self.index_counts[key]

    def add(self, metric: str, value: float, line: int, raw: str | None, params: dict) -> None:
        """Add one row of this run.

        Parameters
        ----------
        metric : str
            A key of :data:`METRICS` (which gives the unit and higher_is_better).
        value : float
            The value in that unit.
        line : int
            The line it was read from.
        raw : str or None
            The value as printed.
        params : dict
            The row's parameters (None values are absent).

        Raises
        ------
        ParseError
            When the value overflowed to infinity.
        """
        unit, hib = METRICS[metric]
        value = float(value)
        if not math.isfinite(value):
            raise ParseError(self.path, line, f"{metric}: {raw!r} is out of range")
        self.rows.add(line, metric, value, unit, hib, raw, params)
        self.found = True

    def context(self, fmt: str, group: int, name: str, *, numjobs, error, index, description,
                options: dict | None = None, version: str | None = None) -> dict:
        """Collect the parameters shared by all rows of one job report.

        Parameters
        ----------
        fmt : str
            ``json`` or ``text`` (``p_format``).
        group : int
            ``p_group``.
        name : str
            ``p_job``.
        numjobs, error, index, description
            ``p_numjobs``, ``p_error``, ``p_job_index``, ``p_description`` (None: absent).
        options : dict, optional
            rw, ioengine, iodepth and bs (per direction) the report itself states; the job
            line's values take precedence.
        version : str, optional
            The fio version the report states (else the run's).

        Returns
        -------
        dict
            The parameters and ``tool_version``, and under ``_bs`` the fixed block
            size of each direction (see :meth:`dir_params`).
        """
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
    def dir_params(ctx: dict, direction: str | None) -> dict:
        """Give the parameters of a job's rows for one direction (None: the job's own rows).

        Parameters
        ----------
        ctx : dict
            The job's :meth:`context`.
        direction : str or None
            ``read``, ``write``, ``trim``, ``mixed`` or ``sync`` (``p_direction``).

        Returns
        -------
        dict
            The row parameters, with ``p_bs`` the direction's block size when fixed.
        """
        params = {k: v for k, v in ctx.items() if not k.startswith("_")}
        if direction is not None:
            params["p_direction"] = direction
            if direction in ctx["_bs"]:
                size = ctx["_bs"][direction]
                params["p_bs"] = int(size) if size is not None else None
        return params
