"""fio's JSON output (``--output-format=json`` or ``json+``; 3.x, and 2.x's older JSON).

:func:`read_document` decodes one document of an output file (which may hold text before and
after it) and adds its rows through the parse's :class:`~overhead.parsers.fio._run.Run`, every
row sourced at the line of its value. See :mod:`overhead.parsers.fio` for the rows and units.
"""

from __future__ import annotations

import bisect
import json
import math
import re

from overhead.parsers._common import (
    BINARY_PREFIXES,
    DECIMAL_PREFIXES,
    JSON_DECODER,
    JsonNumber,
    ParseError,
    json_line_map,
)
from overhead.parsers.fio._run import DIRS, Run, small_int


def _option_bytes(value: str, kb_base_1000: bool) -> float | None:
    """Read a size given as a fio option (``4k``, ``1M``, ``4096``), with fio's input convention.

    By default (kb_base=1024) ``k`` = 1024 and ``ki`` = 1000; kb_base=1000 swaps them. Returns
    None when ``value`` is not such a size or is 2**53 bytes or more.
    """
    m = re.match(r"^\s*([0-9]+)\s*([kmgtpe]?)(i?)b?\s*$", value, re.I)
    if not m:
        return None
    prefix, i = m.group(2).lower(), bool(m.group(3))
    binary = i if kb_base_1000 else not i
    value = float(m.group(1)) * (BINARY_PREFIXES if binary else DECIMAL_PREFIXES)[prefix]
    return value if value < 2**53 else None


def read_document(run: Run, lines: list[str], offsets: list[int], start: int) -> int:
    """Decode the JSON document starting at line index ``start`` and add its rows.

    Parameters
    ----------
    run : Run
        The parse state (its ``text`` holds the document).
    lines : list[str]
        The text's lines, with their terminators.
    offsets : list[int]
        The offset in the text of each line.
    start : int
        0-based index of the document's first line (a ``{`` alone).

    Returns
    -------
    int
        0-based index of the document's last line.

    Raises
    ------
    ParseError
        When the document is broken or truncated (naming the line where it broke), is not fio
        output, or a value in it is malformed.
    """
    text, path = run.text, run.path
    # line numbers follow str.splitlines (as everywhere in this parser), which also breaks at
    # a lone "\r" before the document (terminal progress lines), unlike JSONDecodeError.lineno
    try:
        doc, end = JSON_DECODER.raw_decode(text, offsets[start])
    except json.JSONDecodeError as exc:
        line = bisect.bisect_right(offsets, exc.pos) if exc.pos < len(text) else len(lines)
        raise ParseError(path, line, f"fio JSON output is broken or truncated: {exc.msg}") from None
    except RecursionError:
        raise ParseError(path, start + 1, "fio JSON output nests too deeply") from None
    last = bisect.bisect_right(offsets, end - 1) - 1
    where = json_line_map(lines, start, last)
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
        # the "jobs" line when there is one that is not a list, else the document's start
        raise ParseError(path, where.get(("jobs",), start + 1),
                         "JSON document is not fio output (no \"jobs\" list)")
    run.new_run_if_needed("json")
    run.run_results.add("json")
    run.found = True
    _JsonDoc(run, doc, where, start + 1).emit()
    return last


class _JsonDoc:
    """Rows from one fio JSON document.

    Parameters
    ----------
    run : Run
        The parse state the rows go to.
    doc : dict
        The decoded document (numbers as JsonNumber).
    where : dict[tuple, int]
        JSON path -> line (see :func:`overhead.parsers._common.json_line_map`).
    first_line : int
        The document's first line.
    """

    def __init__(self, run: Run, doc: dict, where: dict[tuple, int], first_line: int):
        self.p = run
        self.doc = doc
        self.where = where
        self.first_line = first_line
        self.path = run.path

    def line(self, *keys) -> int:
        """Give the line of JSON path ``keys`` (or of its nearest parent the map knows)."""
        keys = tuple(keys)
        while keys:
            if keys in self.where:
                return self.where[keys]
            keys = keys[:-1]
        return self.first_line

    def num(self, obj: dict, key: str, *where) -> JsonNumber | None:
        """Read the number ``obj[key]``; None when absent or NaN; ParseError when not a number."""
        if not isinstance(obj, dict) or key not in obj or obj[key] is None:
            return None
        v = obj[key]
        if not isinstance(v, JsonNumber):
            raise ParseError(self.path, self.line(*where, key), f"JSON {key!r}: expected a number, found {v!r}")
        return v

    def add(self, metric: str, value: float, raw: JsonNumber | str, params: dict, *where) -> None:
        """Add a row for the value at JSON path ``where`` (raw: the number as printed)."""
        tok = raw.tok if isinstance(raw, JsonNumber) else raw
        self.p.add(metric, value, self.line(*where), tok, params)

    def emit(self) -> None:
        """Add the rows of every job and disk of the document."""
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
        """Add the rows of ``jobs[ji]``."""
        w = ("jobs", ji)
        name = job.get("jobname")
        group = self.num(job, "groupid", *w)
        if not isinstance(name, str) or group is None:
            bad = "jobname" if "jobname" in job and not isinstance(name, str) else None
            raise ParseError(self.path, self.line(*w, bad) if bad else self.line(*w),
                             "JSON job: expected \"jobname\" and \"groupid\"")
        group = small_int(group, self.path, self.line(*w, "groupid"), "groupid")
        jopts = job.get("job options") if isinstance(job.get("job options"), dict) else {}
        opts = {**gopts, **jopts}

        def opt_line(key: str) -> int:
            """Give the line of option ``key``: the job's own, else the global one."""
            if key in jopts:
                return self.line(*w, "job options", key)
            return self.line("global options", key)
        kb1000 = str(opts.get("kb_base", "")).strip() == "1000"
        options: dict = {}
        if isinstance(opts.get("rw"), str):
            options["rw"] = opts["rw"]
        if isinstance(opts.get("ioengine"), str):
            options["ioengine"] = opts["ioengine"]
        if isinstance(opts.get("iodepth"), str) and opts["iodepth"].strip().isdigit():
            options["iodepth"] = small_int(opts["iodepth"], self.path, opt_line("iodepth"), "iodepth")
        if isinstance(opts.get("bs"), str):
            sizes = [_option_bytes(s, kb1000) for s in opts["bs"].split(",")]
            if sizes and all(s is not None for s in sizes):
                sizes = sizes + [sizes[-1]] * (3 - len(sizes)) if len(sizes) < 3 else sizes[:3]
                options["bs"] = dict(zip(DIRS, sizes, strict=True))
        self.p.json_options.setdefault((group, name), options)
        numjobs = 1
        nj = opts.get("numjobs")
        if names.get((job.get("groupid"), name), 0) == 1 and isinstance(nj, str) and nj.strip().isdigit():
            numjobs = small_int(nj, self.path, opt_line("numjobs"), "numjobs")
        desc = job.get("desc") if isinstance(job.get("desc"), str) else opts.get("description")
        error = self.num(job, "error", *w)
        if error is not None:
            error_line = self.line(*w, "error")
            error = small_int(error, self.path, error_line, "error")
            if error != 0:
                # a job that stopped on an error: its figures cover what it did before failing
                said = self.p.message(error)
                self.p.fail(error_line, f"job {name!r} (group {group}) reports \"error\" : {error}"
                            + (f"; fio printed at line {said[0]}: {said[1]}" if said else ""))
        ctx = self.p.context("json", group, name, numjobs=numjobs,
                              error=error,
                              index=self.p.job_index("json", group, name),
                              description=desc if isinstance(desc, str) else None,
                              options=options, version=version)
        if isinstance(job.get("hostname"), str):
            ctx["host"] = job["hostname"]
        for direction in (*DIRS, "mixed", "sync"):
            d = job.get(direction)
            if isinstance(d, dict):
                self.direction(w + (direction,), d, direction, ctx)
        self.job_level(w, job, ctx)

    def direction(self, w: tuple, d: dict, direction: str, ctx: dict) -> None:
        """Add the rows of one direction of a job (at JSON path ``w``)."""
        p = self.p.dir_params(ctx, direction)
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
        """Add the rows of a latency statistics object (``clat_ns``...) at ``w``."""
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
                self.add(f"{kind}_bin_count", v, v, {**p, "p_latency": small_int(key, self.path, self.line(*w, "bins", key), "bin") * scale},
                         *w, "bins", key)

    def job_level(self, w: tuple, job: dict, ctx: dict) -> None:
        """Add a job's rows without a direction: CPU, IO depths, latency buckets."""
        p = self.p.dir_params(ctx, None)
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
                self.add("iodepth_share", v, v, {**p, "p_depth": small_int(m.group(2), self.path, self.line(*w, "iodepth_level", key), "depth")},
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
                         small_int(m.group(2), self.path, self.line(*w, key, bound), "bound") * scale}
                self.add("lat_bucket", v, v, {**p, **extra}, *w, key, bound)

    def disk(self, di: int, disk, version: str | None) -> None:
        """Add the rows of ``disk_util[di]``."""
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
