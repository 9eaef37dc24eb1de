"""HPC Challenge (HPCC 1.5, Debian's ``hpcc``) output file ``hpccoutf.txt``.

HPCC appends to ``hpccoutf.txt``, so one file may hold several runs; each starts with the
banner ``This is the DARPA/DOE HPC Challenge Benchmark version 1.5.0 ...`` (``tool_version``),
``Current time (<epoch>) is ...`` (the first one gives ``started_at``) and ``Hostname: '<h>'``
(``host``), then one ``Begin of <X> section.`` ... ``End of <X> section.`` block per test and a
``Summary`` section of ``key=value`` lines. ``trial`` is the 1-based run number in the file.

Rows, with ``benchmark`` naming the HPCC component:

- ``hpl``: from the HPL section's result table (one row per line such as
  ``WR11C2R4  1000  80  1  1  0.12  5.714e+00``): ``flop_rate`` (FLOP/s = Gflops x 1e9),
  ``solve_time`` (s) and ``residual`` (the scaled residual, ratio), with p_n, p_nb, p_p, p_q
  (process grid), p_variant (the encoded variant, e.g. WR11C2R4), p_check (PASSED/FAILED) and
  p_scope = "mpi", p_section = "hpl". A table line is reported once its residual line has been
  read (or the section ended without checks). The summary repeats the best test at full
  precision (``HPL_Tflops=0.00571369``, ``HPL_time=0.116941`` for the table's ``0.12`` s and
  ``5.714e+00`` Gflops): ``flop_rate`` and ``solve_time`` again, with p_section = "summary" and
  p_n, p_nb, p_p, p_q from ``HPL_N``, ``HPL_NB``, ``HPL_nprow``, ``HPL_npcol``. Select one
  p_section when averaging over files (the two rows describe the same solve).
- ``stream``: ``bandwidth`` (B/s) from ``StarSTREAM_<Kernel>`` / ``SingleSTREAM_<Kernel>`` with
  p_kernel (copy/scale/add/triad) and p_scope (star/single), p_vector_size, p_threads. HPCC's
  STREAM GB/s is 10^9 bytes/s: STREAM/stream.c computes ``1e-9 * bytes * array_elements /
  mintime``. StarSTREAM is the average per-process rate over the processes (StarStream in
  STREAM/onecpu.c), not their sum.
- ``randomaccess``: ``update_rate`` (update/s = GUP/s x 1e9) from ``MPIRandomAccess_GUPs``,
  ``StarRandomAccess_GUPs``, ``SingleRandomAccess_GUPs`` and their ``_LCG_`` variants, with
  p_scope (mpi/star/single), p_kernel (randomaccess/randomaccess_lcg), p_table_size (words).
- ``ptrans``: ``bandwidth`` (B/s; PTRANS/pdtransdriver.c: ``1e-9 * m * n * 8 / time``) from
  ``PTRANS_GBs`` with p_n, p_nb, p_p, p_q, p_scope = "mpi".
- ``dgemm``: ``flop_rate`` from ``StarDGEMM_Gflops``/``SingleDGEMM_Gflops`` (p_scope, p_n).
- ``fft``: ``flop_rate`` from ``StarFFT_Gflops``/``SingleFFT_Gflops``/``MPIFFT_Gflops``
  (p_scope star/single/mpi, p_n = vector size).
- ``latency_bandwidth`` (needs 2 or more processes): ``latency_min``/``_mean``/``_max`` (s, HPCC
  prints usec) and ``bandwidth_min``/``_mean``/``_max`` (B/s; HPCC's GBytes are 10^9 bytes, its
  report says "1 MB/s = 10**6 byte/sec") for p_kernel = ping_pong, and ``latency``/``bandwidth``
  for p_kernel = natural_ring / random_ring.

Every row has p_kernel (for hpl, ptrans, dgemm and fft it repeats the component's name).
Summary rows carry p_section = "summary", p_procs (CommWorldProcs) and p_success (the summary's
``Success``); every value is read as the summary prints it (``StarSTREAM_Triad=30.0767``: six
significant digits, where the STREAM section prints ``30.076741``; for HPL the summary is the
more precise of the two). HPCC
writes -1 for a figure it did not measure (e.g. latency with one process): no row. Other summary
keys (times, error counts, norms, machine epsilons, sizeof, compile switches) are not read, nor
are the per-section texts that the summary repeats. A run ends with "End of HPC Challenge
tests.", the current time and a rule of 72 '#' (src/io.c); output that ends before that rule
(a run stopped or a capture cut) keeps its rows and is marked cut short
(:func:`~overhead.parsers._common.cut_short`). A summary without its ``End of Summary
section.`` line (file cut off) gives no rows. A file with HPCC's banner but no result at all
(the run stopped, or the file was cut, before the HPL table and the summary) raises
:class:`~overhead.parsers._common.RunFailed`.
"""

from __future__ import annotations

import re

import pandas as pd

from overhead.parsers._common import ParseError, Rows, RunFailed, cut_short, number, numbered
from overhead.parsers.hpl import ROW, add_result, read_result

TOOL = "hpcc"

_BANNER = re.compile(r"^This is the DARPA/DOE HPC Challenge Benchmark version (\S+)")
_TIME = re.compile(r"^Current time \((\d+)\) is ")
_HOST = re.compile(r"^Hostname: '(.*)'$")
_BEGIN = re.compile(r"^Begin of (\S+) section\.$")
_END = re.compile(r"^End of (\S+) section\.$")
_HPL_RESID = re.compile(r"^\|\|Ax-b\|\|_oo/.*=\s*(\S+)\s+\.+\s+(PASSED|FAILED)$")
_KV = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")

# summary key -> (benchmark, metric, unit, scale, higher_is_better, fixed parameters)
_SUMMARY: dict[str, tuple] = {}
for _scope in ("Star", "Single"):
    for _k in ("Copy", "Scale", "Add", "Triad"):
        _SUMMARY[f"{_scope}STREAM_{_k}"] = ("stream", "bandwidth", "B/s", 1e9, True,
                                            {"p_kernel": _k.lower(), "p_scope": _scope.lower()})
for _scope in ("MPI", "Star", "Single"):
    for _lcg in ("", "_LCG"):
        _SUMMARY[f"{_scope}RandomAccess{_lcg}_GUPs"] = (
            "randomaccess", "update_rate", "update/s", 1e9, True,
            {"p_scope": _scope.lower(), "p_kernel": "randomaccess" + _lcg.lower()})
_SUMMARY.update({
    "PTRANS_GBs": ("ptrans", "bandwidth", "B/s", 1e9, True, {"p_scope": "mpi", "p_kernel": "ptrans"}),
    "StarDGEMM_Gflops": ("dgemm", "flop_rate", "FLOP/s", 1e9, True,
                         {"p_scope": "star", "p_kernel": "dgemm"}),
    "SingleDGEMM_Gflops": ("dgemm", "flop_rate", "FLOP/s", 1e9, True,
                           {"p_scope": "single", "p_kernel": "dgemm"}),
    "StarFFT_Gflops": ("fft", "flop_rate", "FLOP/s", 1e9, True, {"p_scope": "star", "p_kernel": "fft"}),
    "SingleFFT_Gflops": ("fft", "flop_rate", "FLOP/s", 1e9, True,
                         {"p_scope": "single", "p_kernel": "fft"}),
    "MPIFFT_Gflops": ("fft", "flop_rate", "FLOP/s", 1e9, True, {"p_scope": "mpi", "p_kernel": "fft"}),
})
for _key, _metric, _kernel in (
    ("MinPingPongLatency_usec", "latency_min", "ping_pong"),
    ("AvgPingPongLatency_usec", "latency_mean", "ping_pong"),
    ("MaxPingPongLatency_usec", "latency_max", "ping_pong"),
    ("NaturallyOrderedRingLatency_usec", "latency", "natural_ring"),
    ("RandomlyOrderedRingLatency_usec", "latency", "random_ring"),
):
    _SUMMARY[_key] = ("latency_bandwidth", _metric, "s", 1e-6, False, {"p_kernel": _kernel})
for _key, _metric, _kernel in (
    ("MinPingPongBandwidth_GBytes", "bandwidth_min", "ping_pong"),
    ("AvgPingPongBandwidth_GBytes", "bandwidth_mean", "ping_pong"),
    ("MaxPingPongBandwidth_GBytes", "bandwidth_max", "ping_pong"),
    ("NaturallyOrderedRingBandwidth_GBytes", "bandwidth", "natural_ring"),
    ("RandomlyOrderedRingBandwidth_GBytes", "bandwidth", "random_ring"),
):
    _SUMMARY[_key] = ("latency_bandwidth", _metric, "B/s", 1e9, True, {"p_kernel": _kernel})

# summary parameter keys: component -> ((summary key, parameter), ...)
_SUMMARY_PARAMS = {
    "stream": (("STREAM_VectorSize", "p_vector_size"), ("STREAM_Threads", "p_threads")),
    "ptrans": (("PTRANS_n", "p_n"), ("PTRANS_nb", "p_nb"), ("PTRANS_nprow", "p_p"),
               ("PTRANS_npcol", "p_q")),
    "dgemm": (("DGEMM_N", "p_n"),),
}


def detect(text: str) -> float:
    """Tell whether ``text`` is an HPCC output file.

    Returns a confidence from 0 (not HPCC output) to 1.
    """
    head = text[:20000]
    if "HPC Challenge Benchmark" in head:
        return 1.0
    if "Begin of Summary section." in text and "End of Summary section." in text:
        return 0.9
    return 0.0


def parse(text: str, path: str = "<string>") -> pd.DataFrame:
    """Parse an HPCC output file into tidy rows (see the module docstring).

    Follows the parser contract of :mod:`overhead.parsers` (text and path in, conformed
    tidy rows out); the rows are described in the module docstring.

    Raises
    ------
    ParseError
        For text that is not HPCC output or holds no result, for malformed HPL result lines
        or summary values, and for a whole-number parameter out of the 64-bit range.
    """
    rows = Rows(path, tool=TOOL)
    run: dict = {}
    trial = 0
    seen_hpcc = False
    ended: int | None = None  # the last run's closing rule, after "End of HPC Challenge tests."
    closing: int | None = None  # the line "End of HPC Challenge tests." until the rule follows
    section: str | None = None
    hpl_pending: dict | None = None  # last HPL table row, waiting for its residual line
    summary: dict[str, tuple[str, int]] | None = None

    def base() -> dict:
        out = {"trial": trial}
        for k in ("tool_version", "started_at", "host"):
            if k in run:
                out[k] = run[k]
        return out

    def flush_hpl(check: str | None = None, resid: tuple[str, int] | None = None) -> None:
        nonlocal hpl_pending
        if hpl_pending is None:
            return
        add_result(rows, hpl_pending, {**base(), "benchmark": "hpl", "p_scope": "mpi",
                                        "p_kernel": "hpl", "p_section": "hpl"}, check, resid)
        hpl_pending = None

    for lineno, line in numbered(text):
        stripped = line.strip()
        m = _BANNER.match(stripped)
        if m:
            hpl_pending = None
            seen_hpcc = True
            trial += 1
            run = {"tool_version": m.group(1)}
            section, summary, ended, closing = None, None, None, None
            continue
        if stripped == "End of HPC Challenge tests.":
            closing = lineno  # the end, once the "Current time" line and the rule follow
            continue
        if closing is not None and line == "#" * 72:
            ended, closing = lineno, None  # src/io.c ends the file with a rule of 72 '#'
            continue
        if not run:
            if _BEGIN.match(stripped):  # output without the banner (e.g. a copied excerpt)
                trial += 1
                run = {"_nobanner": True}
                ended = closing = None
            else:
                continue
        m = _TIME.match(stripped)
        if m:
            if "started_at" not in run:
                run["started_at"] = pd.Timestamp(int(m.group(1)), unit="s", tz="UTC")
            continue
        m = _HOST.match(stripped)
        if m and section is None:
            run["host"] = m.group(1)
            continue
        m = _BEGIN.match(stripped)
        if m:
            section = m.group(1)
            if section == "Summary":
                seen_hpcc = True
                summary = {}
            continue
        m = _END.match(stripped)
        if m:
            if section == "HPL":
                flush_hpl()
            if section == "Summary" and summary is not None:
                _summary_rows(rows, summary, base())
                summary = None
            section = None
            continue
        if section == "HPL":
            r = ROW.match(stripped)
            if r:
                flush_hpl()
                hpl_pending = read_result(r, path, lineno)
                continue
            c = _HPL_RESID.match(stripped)
            if c and hpl_pending is not None:
                flush_hpl(c.group(2), (c.group(1), lineno))
                continue
            if stripped.startswith("Finished") and "tests" in stripped:
                flush_hpl()
            continue
        if section == "Summary" and summary is not None:
            kv = _KV.match(stripped)
            if not kv:
                raise ParseError(path, lineno, f"summary line is not key=value: {stripped!r}")
            summary[kv.group(1)] = (kv.group(2).strip(), lineno)
    if not seen_hpcc:
        raise ParseError(path, 1, "not HPCC output (no 'HPC Challenge Benchmark' banner and no "
                         "'Begin of Summary section.')")
    if not len(rows):
        raise RunFailed(path, None, "HPCC output holds no result (it stops before the HPL table "
                                    "and the summary)")
    if ended is None:
        # HPCC writes this line when every test is done; without it the run (or the capture)
        # stopped before its end, whatever the rows read so far
        return cut_short(rows.frame(), path, None, "the output ends before HPCC's closing lines "
                         "('End of HPC Challenge tests.', the time and a rule of '#'); the results "
                         "read are kept")
    return rows.frame()


def _summary_rows(rows: Rows, summary: dict[str, tuple[str, int]], base: dict) -> None:
    """Add the rows of one run's summary (key -> (value text, line))."""
    path = rows.path

    def num(key: str) -> float | None:
        if key not in summary:
            return None
        tok, lineno = summary[key]
        return number(tok, path, lineno, key)

    def whole(key: str) -> int | None:
        value = num(key)
        return int(value) if value is not None and value >= 0 and value.is_integer() else None

    common = {**base, "p_section": "summary"}
    procs = whole("CommWorldProcs")
    if procs is not None:
        common["p_procs"] = procs
    success = whole("Success")
    if success is not None:
        common["p_success"] = success == 1
    sizes = {"randomaccess": whole("RandomAccess_N"), "randomaccess_lcg": whole("RandomAccess_LCG_N"),
             "mpi_randomaccess": whole("MPIRandomAccess_N"),
             "mpi_randomaccess_lcg": whole("MPIRandomAccess_LCG_N")}
    fft_n = {"star": whole("FFT_N"), "single": whole("FFT_N"), "mpi": whole("MPIFFT_N")}

    def add(key: str, benchmark: str, metric: str, unit: str, scale: float, hib, params: dict) -> None:
        value = num(key)
        if value is None or value < 0:  # HPCC writes -1 for what it did not measure
            return
        tok, lineno = summary[key]
        rows.add(lineno, metric, value * scale, unit, hib, f"{key}={tok}", common,
                 benchmark=benchmark, **params)

    hpl = {"p_scope": "mpi", "p_kernel": "hpl"}
    for key, param in (("HPL_N", "p_n"), ("HPL_NB", "p_nb"), ("HPL_nprow", "p_p"),
                       ("HPL_npcol", "p_q")):
        if whole(key) is not None:
            hpl[param] = whole(key)
    add("HPL_Tflops", "hpl", "flop_rate", "FLOP/s", 1e12, True, hpl)
    add("HPL_time", "hpl", "solve_time", "s", 1.0, False, hpl)
    for key, (benchmark, metric, unit, scale, hib, fixed) in _SUMMARY.items():
        params = dict(fixed)
        for skey, param in _SUMMARY_PARAMS.get(benchmark, ()):
            if whole(skey) is not None:
                params[param] = whole(skey)
        if benchmark == "randomaccess":
            size_key = ("mpi_" if params["p_scope"] == "mpi" else "") + params["p_kernel"]
            if sizes[size_key] is not None:
                params["p_table_size"] = sizes[size_key]
        if benchmark == "fft" and fft_n[params["p_scope"]] is not None:
            params["p_n"] = fft_n[params["p_scope"]]
        add(key, benchmark, metric, unit, scale, hib, params)
