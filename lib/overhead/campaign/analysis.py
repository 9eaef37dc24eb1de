"""Order effects, noise flags and verdicts of a campaign.

Three questions about a campaign's own trials, answered from its tidy folder (``measurements`` and
``trials.parquet``, written by :mod:`overhead.campaign.ingest`):

- Was the measured host quiet? :func:`noise_command` is the shell line the executor runs on the
  host before and after each trial, :func:`parse_noise` reads its output and
  :func:`noise_flags` says which of load, swap and throttling moved during the trial (the
  executor stores them in trial.json). :func:`noise_summary` counts the flags per environment.
- What does each comparison conclude? :func:`verdict_lines` decides every judged quantity's
  comparison with the baseline (as the verdicts stopping rule does) and says why it stopped.
- Does a value depend on when it was measured? :func:`order_effects` tests, per cell and metric,
  whether the value drifts with the trial's position in its host's execution order
  (Mann-Kendall trend test) and whether it depends on which environment ran just before
  (Kruskal-Wallis), Holm-corrected over the whole table.

:func:`report` puts both in the few lines ``overhead status FILE --analysis`` prints.

Noise thresholds (defaults of :func:`noise_flags`):

- ``swap``: the host's ``pswpin`` or ``pswpout`` counter (pages swapped in/out since boot,
  /proc/vmstat) increased during the trial. Any page counts: a benchmark host should not swap
  at all, and one swapped page already means memory pressure and a stall of milliseconds.
- ``throttle``: the sum of the CPUs' thermal throttle counters
  (``/sys/devices/system/cpu/cpu*/thermal_throttle/*_throttle_count``) increased: the CPU ran
  below its clock for a while. Hosts without these counters (most VMs, non-Intel CPUs) never
  get the flag: the counter is None, which is "not measured", never 0.
- ``load``: the 1-minute load average read right after the trial exceeds ``cores * (1 +
  load_threshold)`` (default ``load_threshold`` 0.5, i.e. 3.0 on a 2-CPU host). load1 counts
  the tasks running, waiting for a CPU or in uninterruptible I/O, averaged over about a minute.
  The trial itself and the decaying tails of the trials before it keep at most ``cores`` tasks
  busy when a benchmark runs no more threads than the host has CPUs (an exponential average of
  values up to ``cores`` stays up to ``cores``), so half the CPUs' worth of tasks above that
  means tasks queued for a CPU: something else ran on the host, or the benchmark itself ran
  more threads than there are CPUs (which is worth knowing too). The flag is a coarse alarm:
  load1 has a one-minute time constant and is updated every 5 seconds, so a burst during a
  trial of a few seconds barely moves it; the swap and throttle counters are exact.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as st

from overhead.campaign.layout import INTERFERENCE_FLAGS
from overhead.stats._common import (
    StatsError,
    check_level,
    iter_groups,
    require_columns,
    require_rows,
)
from overhead.stats.significance import holm, kruskal_wallis

#: Names of the noise flags, in the order :func:`noise_flags` lists them.
FLAGS: tuple[str, ...] = ("load", "swap", "throttle")

#: The fields :func:`noise_command` prints and :func:`parse_noise` returns, with their types.
NOISE_FIELDS: dict[str, type] = {"load1": float, "pswpin": int, "pswpout": int,
                                 "throttle": int, "nproc": int, "cpu_busy": int, "cpu_irq": int,
                                 "cpu_steal": int, "cg_ns": int, "root_ns": int,
                                 "kthread_ticks": int}

#: Flags of interference (:func:`interference`): a trial with one is excluded from statistics
#: and run again; the flags of :data:`FLAGS` only inform.
INTERFERENCE: tuple[str, ...] = INTERFERENCE_FLAGS

#: Defaults of :func:`interference`: a trial is flagged when what ran outside its cgroup, or
#: the hypervisor's steal, took more than this fraction of the host's CPU time during it...
INTERFERENCE_SHARE = 0.05
#: ... and more than this many CPU-seconds (the floor keeps short trials from being flagged
#: by the few tens of milliseconds the harness itself spends around a trial).
INTERFERENCE_FLOOR_S = 0.5

#: Default of ``load_threshold``: half a CPU's worth of queued tasks per CPU above the CPU count.
LOAD_THRESHOLD = 0.5

#: Default of ``min_trials``: measured non-warm-up trials a cell needs before it is tested.
MIN_TRIALS = 6

#: Columns of :func:`order_effects` (the ``p_*`` columns of the measurements follow ``unit``).
ORDER_COLUMNS: tuple[str, ...] = (
    "cell", "benchmark", "environment", "variant", "env_name", "host", "metric", "unit", "n",
    "test", "statistic", "slope", "p", "p_holm", "significant", "finding", "reason")

_LINE = re.compile(r"^\s*([a-z0-9_]+)=(\S*)\s*$")


def noise_command(proc: str = "/proc", sys: str = "/sys", *, nproc: bool = True,
                  cgroup: str | None = None) -> str:
    """Return the POSIX sh command that samples the host's noise counters.

    The executor runs it on the measured host right before and right after each trial. It runs
    in a subshell (its variables do not leak), needs nothing beyond a POSIX shell and
    ``getconf`` (or coreutils ``nproc``), never fails, and prints ``name=value`` lines:
    ``load1`` (first field of /proc/loadavg), ``pswpin`` and ``pswpout`` (/proc/vmstat),
    ``throttle`` (sum of every ``/sys/devices/system/cpu/cpu*/thermal_throttle/*_throttle_count``;
    the line is left out when the host has no such counter) and ``nproc`` (online CPUs). A
    value that cannot be read is left out, never printed as 0.

    Parameters
    ----------
    proc, sys : str
        Where procfs and sysfs are mounted (tests point them at a fake tree).
    nproc : bool
        Print ``nproc`` too. The executor samples twice per trial and knows the host's cores
        from its facts, so it leaves this out: on a host where starting a process costs
        milliseconds, ``getconf`` is most of the command's time.
    cgroup : str, optional
        The trial's cgroup (:func:`overhead.environments.posix.cgroup_name`): its CPU time is
        printed as ``cg_ns`` (nanoseconds; cgroup v1 ``cpuacct.usage``, v2 ``cpu.stat``
        ``usage_usec``), and so is the accounting root's (``root_ns``: every task of the host,
        counted the same way) and ``kthread_ticks``, the CPU time of the kernel's own threads
        (kthreadd and its children: journal commits, writeback, ksoftirqd), which live in the
        root. Besides, ``cpu_busy`` (user + nice + system), ``cpu_irq`` (irq + softirq) and
        ``cpu_steal`` are the host's totals from /proc/stat, in clock ticks.

    Returns
    -------
    str
        One line of shell, safe to join with ``;`` to other commands.
    """
    return (
        f"(P={shlex.quote(proc)}; S={shlex.quote(sys)}; "
        'read l1 rest < "$P/loadavg" && echo "load1=$l1"; '
        'while read k v; do case $k in pswpin|pswpout) echo "$k=$v";; esac; done < "$P/vmstat"; '
        't=; for f in "$S"/devices/system/cpu/cpu*/thermal_throttle/*_throttle_count; do '
        '[ -r "$f" ] && read v < "$f" && case $v in ""|*[!0-9]*) ;; *) t=$((${t:-0} + v));; esac; '
        'done; [ -n "$t" ] && echo "throttle=$t"; '
        'read c u n s i w q sq st rest < "$P/stat" && [ "$c" = cpu ] && '
        'echo "cpu_busy=$((u + n + s))" && echo "cpu_irq=$((q + sq))" && '
        'echo "cpu_steal=$((${st:-0}))"; '
        + (_cgroup_usage(cgroup) + _KTHREADS if cgroup else "")
        + ('n=$(getconf _NPROCESSORS_ONLN || nproc --all); echo "nproc=$n"' if nproc else "true")
        + ") 2>/dev/null"
    )


def _cgroup_usage(cgroup: str) -> str:
    """Return shell code printing ``cg_ns`` and ``root_ns`` (each left out when unknown).

    They are the CPU time of ``cgroup`` and of the accounting root.
    """
    from overhead.environments.posix import CGROUP_ROOT

    q = shlex.quote(cgroup)
    usage = ('if [ -r "$g/cpuacct.usage" ]; then read v < "$g/cpuacct.usage" && echo "$k=$v"; '
             'elif [ -r "$g/cpu.stat" ]; then while read a v; do [ "$a" = usage_usec ] && '
             'echo "$k=${v}000"; done < "$g/cpu.stat"; fi; ')
    return (f"{CGROUP_ROOT}; if [ -n \"$cgr\" ]; then g=\"$cgr\"/{q}; k=cg_ns; {usage}"
            f"g=\"$cgr\"; k=root_ns; {usage}fi; ")


#: Shell code printing ``kthread_ticks``: utime + stime (fields 14 and 15 of /proc/PID/stat,
#: counted after the command name, which may hold spaces) of kthreadd (pid 2) and of its
#: children (/proc/2/task/2/children), the kernel's threads; left out when that list is not
#: there (a kernel without CONFIG_PROC_CHILDREN). One awk reads them all (a shell loop over the
#: 60 kernel threads of a small host took 4.7 ms a sample, twice a trial); without awk, the
#: shell loop.
_KTHREADS = ('c="$P"/2/task/2/children; if [ -r "$c" ]; then kids=; read -r kids < "$c"; '
             'if command -v awk >/dev/null 2>&1; then '
             'awk -v P="$P" -v kids="2 $kids" \'BEGIN { kt = 0; n = split(kids, k, " "); '
             'for (i = 1; i <= n; i++) { f = P "/" k[i] "/stat"; '
             'if ((getline line < f) > 0) { sub(/.*\\) /, "", line); split(line, x, " "); '
             'kt += x[12] + x[13] } close(f) } print "kthread_ticks=" kt }\'; '
             'else kt=0; for p in 2 $kids; do read -r line < "$P/$p/stat" || continue; '
             'r=${line##*) }; set -- $r; kt=$((kt + ${12} + ${13})); done; '
             'echo "kthread_ticks=$kt"; fi; fi; ')


def parse_noise(text: str | None) -> dict[str, float | int | None]:
    """Read the output of :func:`noise_command`.

    Lines that are not ``name=value`` with a known name are ignored (the text may carry other
    output); a name given twice keeps its last value. Parsing never raises: the executor calls
    it on whatever the host printed, and a field it cannot read is None.

    Parameters
    ----------
    text : str or None
        The command's standard output (None: nothing was read).

    Returns
    -------
    dict
        Every key of :data:`NOISE_FIELDS` (``load1`` a float, the others ints), None for a field
        that is absent, empty or not a number (never 0 in its place).
    """
    out: dict[str, float | int | None] = dict.fromkeys(NOISE_FIELDS)
    for line in (text or "").splitlines():
        m = _LINE.match(line)
        if not m or m.group(1) not in NOISE_FIELDS:
            continue
        name, raw = m.groups()
        out[name] = _number(raw, NOISE_FIELDS[name])
    return out


def _number(raw: object, kind: type = float) -> float | int | None:
    """Return ``raw`` as a finite number of ``kind``, or None when it is missing or not one."""
    if raw is None or isinstance(raw, bool):
        return None
    if kind is int and isinstance(raw, int | np.integer):
        return int(raw)
    try:
        if kind is int:
            value = int(raw) if isinstance(raw, str) else int(float(raw))
            if not isinstance(raw, str) and float(raw) != value:
                return None
            return value
        value = float(raw)
    except (TypeError, ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def _get(sample: Mapping | None, name: str, kind: type = float) -> float | int | None:
    """Return field ``name`` of one noise sample as a number, or None when missing (or NA)."""
    if not sample:
        return None
    value = sample.get(name)
    try:
        if value is None or pd.isna(value):
            return None
    except (TypeError, ValueError):
        return None
    return _number(value, kind)


def noise_flags(before: Mapping | None, after: Mapping | None, *,
                load_threshold: float = LOAD_THRESHOLD, cores: int | None = None) -> list[str]:
    """Say which of load, swap and throttling moved during one trial.

    Parameters
    ----------
    before, after : mapping or None
        Noise samples taken right before and right after the trial (as from
        :func:`parse_noise`: ``load1``, ``pswpin``, ``pswpout``, ``throttle``, ``nproc``). A
        missing field (absent, None or NaN) never raises a flag and never counts as 0.
    load_threshold : float
        ``load`` is flagged when load1 after the trial exceeds ``cores * (1 +
        load_threshold)``; see the module docstring for why.
    cores : int or None
        The host's CPU count; None takes ``nproc`` from ``after``, else from ``before``. Without
        it the load cannot be judged and is not flagged.

    Returns
    -------
    list of str
        The flags raised, in the order of :data:`FLAGS` (empty when the host was quiet or
        nothing could be judged):

        - ``load``: load1 after > cores * (1 + load_threshold);
        - ``swap``: pswpin or pswpout increased (a counter that went down, after a reboot,
          raises nothing);
        - ``throttle``: the summed thermal throttle count increased.

    Raises
    ------
    StatsError
        When ``load_threshold`` is negative or not a number, or ``cores`` is not positive.
    """
    threshold = _number(load_threshold)
    if threshold is None or threshold < 0:
        raise StatsError(f"load_threshold must be a number >= 0, got {load_threshold!r}")
    if cores is None:
        cores = _get(after, "nproc", int) or _get(before, "nproc", int)
    elif _number(cores, int) is None or cores <= 0:
        raise StatsError(f"cores must be a positive integer, got {cores!r}")
    flags = []
    load1 = _get(after, "load1")
    if cores and load1 is not None and load1 > cores * (1.0 + threshold):
        flags.append("load")
    if any(_rose(before, after, name) for name in ("pswpin", "pswpout")):
        flags.append("swap")
    if _rose(before, after, "throttle"):
        flags.append("throttle")
    return flags


def interference(before: Mapping | None, after: Mapping | None, *, seconds: float,
                 cores: int | None, clk_tck: int | None, share: float = INTERFERENCE_SHARE,
                 steal_share: float = INTERFERENCE_SHARE,
                 floor_s: float = INTERFERENCE_FLOOR_S) -> dict:
    """Say how much CPU time went to something other than the trial while it ran.

    ``outside`` is the CPU time of the host's tasks outside the trial's cgroup (its runner,
    its environment's servers, container or QEMU process, a load generator aimed at it: see
    :func:`overhead.environments.posix.cgroup_name`) that are not the kernel's own threads:
    another environment, a forgotten job, a CPU hog. With the accounting root's figure
    (``root_ns``) and the kernel threads' (``kthread_ticks``) it is ``root - measured -
    kernel``: both cgroup figures count the softirqs their tasks ran the same way, and the
    kernel's work for the trial (journal commits and writeback of an fsync loop, ksoftirqd)
    is not counted against it. Interrupts taken outside any task and the kernel threads'
    time are given on their own (``irq_s``, ``kernel_s``) and not judged: a trial's own
    block I/O puts seconds there (an fsync loop here: 2.4 s irq in 16 s), as a flood from
    outside would. Without the root's figure (an older sample) ``outside`` is ``busy + irq -
    measured`` from /proc/stat, as before: irq counts there because a cgroup's CPU time
    includes the softirqs its tasks ran (a netperf trial through Docker's NAT measured 2.14
    s in its cgroup against 1.16 s user + system and 0.91 s irq + softirq). ``steal`` is time
    the host's own hypervisor gave to another guest (this host may be a VM). Small negative
    ``outside`` values are the clocks' granularity (ticks of 10 ms against nanoseconds).

    Parameters
    ----------
    before, after : mapping or None
        :func:`parse_noise` samples around the trial (``cpu_busy``, ``cpu_irq``,
        ``cpu_steal``, ``kthread_ticks`` in clock ticks, ``cg_ns``, ``root_ns`` in
        nanoseconds).
    seconds : float
        The trial's wall time.
    cores : int or None
        The host's CPUs.
    clk_tck : int or None
        Clock ticks per second of /proc/stat (``getconf CLK_TCK``).
    share, steal_share : float
        Fraction of the host's CPU time (``cores * seconds``) above which ``outside`` and
        ``steal`` are flagged...
    floor_s : float
        ... provided it is also more than this many CPU-seconds.

    Returns
    -------
    dict
        ``busy_s``, ``measured_s``, ``outside_s``, ``kernel_s``, ``irq_s``, ``steal_s``
        (CPU-seconds; None when a sample lacks what it needs: never 0 in its place;
        ``outside_s`` is None without the cgroup's figure) and ``flags``, a list of
        :data:`INTERFERENCE` names.
    """
    for name, value in (("share", share), ("steal_share", steal_share), ("floor_s", floor_s)):
        v = _number(value)
        if v is None or v < 0:
            raise StatsError(f"{name} must be a number >= 0, got {value!r}")
    out: dict = dict.fromkeys(("busy_s", "measured_s", "outside_s", "kernel_s", "irq_s",
                               "steal_s"))
    out["flags"] = []
    tck = _number(clk_tck, int)

    def ticks(name: str) -> float | None:
        b, a = _get(before, name, int), _get(after, name, int)
        if b is None or a is None or not tck or tck <= 0 or a < b:
            return None
        return (a - b) / tck

    def nanos(name: str) -> float | None:
        b, a = _get(before, name, int), _get(after, name, int)
        return (a - b) / 1e9 if b is not None and a is not None and a >= b else None

    out["busy_s"], out["irq_s"], out["steal_s"] = ticks("cpu_busy"), ticks("cpu_irq"), ticks("cpu_steal")
    out["kernel_s"] = ticks("kthread_ticks")
    out["measured_s"] = nanos("cg_ns")
    root = nanos("root_ns")
    if out["busy_s"] is not None and out["irq_s"] is not None:
        out["busy_s"] += out["irq_s"]
    else:
        out["busy_s"] = None
    if out["measured_s"] is not None:
        if root is not None:  # without the kernel threads' figure, their time counts as outside
            out["outside_s"] = root - out["measured_s"] - (out["kernel_s"] or 0.0)
        elif out["busy_s"] is not None:
            out["outside_s"] = out["busy_s"] - out["measured_s"]
    for key in ("busy_s", "measured_s", "outside_s", "kernel_s", "irq_s", "steal_s"):
        if out[key] is not None:
            out[key] = round(out[key], 3)
    capacity = (cores or 0) * max(float(seconds), 0.0)
    if capacity > 0:
        if out["outside_s"] is not None and out["outside_s"] > max(floor_s, share * capacity):
            out["flags"].append("outside")
        if out["steal_s"] is not None and out["steal_s"] > max(floor_s, steal_share * capacity):
            out["flags"].append("steal")
    return out


def _rose(before: Mapping | None, after: Mapping | None, name: str) -> bool:
    """Tell whether counter ``name`` is known on both sides and went up."""
    b, a = _get(before, name, int), _get(after, name, int)
    return b is not None and a is not None and a > b


# --- order effects -------------------------------------------------------------------------

_TRIAL_COLUMNS = ("run_id", "cell", "position", "previous")
_LABELS = ("benchmark", "environment", "variant", "env_name", "host")


def _flag(col: pd.Series) -> np.ndarray:
    """Return a boolean column as a numpy bool array with NA as False."""
    return col.astype("boolean").fillna(False).to_numpy(dtype=bool)


def _usable(measurements: pd.DataFrame, trials: pd.DataFrame,
            metric: str | Sequence[str] | None) -> pd.DataFrame:
    """Join the measured values to their trials; keep done, non-warm-up rows of ``metric``."""
    params = [c for c in measurements.columns if c.startswith("p_")]
    m_cols = ["run_id", "metric", "value", *(["unit"] if "unit" in measurements else []), *params]
    m = measurements[m_cols + (["warmup"] if "warmup" in measurements else [])]
    if metric is not None:
        wanted = [metric] if isinstance(metric, str) else list(metric)
        m = m[m["metric"].isin(wanted)]
    t_cols = [*_TRIAL_COLUMNS, *(c for c in _LABELS if c in trials),
              *(c for c in ("warmup", "status") if c in trials)]
    t = trials[t_cols].rename(columns={"warmup": "t_warmup"})
    df = m.merge(t, on="run_id", how="inner")
    keep = np.ones(len(df), dtype=bool)
    if "status" in df:
        keep &= (df["status"].astype("string") == "done").fillna(False).to_numpy(dtype=bool)
    if "warmup" in df:
        keep &= ~_flag(df["warmup"])
    if "t_warmup" in df:
        keep &= ~_flag(df["t_warmup"])
    return df[keep]


def _per_trial(rows: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Return one row per trial (mean of its values), and how many trials had no finite value."""
    v = rows["value"].to_numpy(dtype="float64", na_value=np.nan)
    finite = rows[np.isfinite(v)]
    per = (finite.groupby("run_id", sort=False, dropna=False)
           .agg(value=("value", "mean"), position=("position", "first"),
                previous=("previous", "first"))
           .reset_index())
    per = per.sort_values("position", kind="stable")
    missing = rows["run_id"].nunique(dropna=False) - len(per)
    return per, missing


def _fmt(x: float) -> str:
    """Format a number with 3 significant digits (scientific notation only when needed)."""
    return f"{x:.3g}"


def _position_test(per: pd.DataFrame, min_trials: int) -> dict[str, object]:
    """Run the Mann-Kendall trend test of value against position, with Sen's slope."""
    n = len(per)
    rec: dict[str, object] = {"test": "mann-kendall", "n": n}
    if n < min_trials:
        return {**rec, "reason": f"too few trials (n={n}, need {min_trials})"}
    y = per["value"].to_numpy(dtype="float64")
    x = per["position"].to_numpy(dtype="float64", na_value=np.nan)
    if not np.isfinite(x).all():
        return {**rec, "reason": f"{int((~np.isfinite(x)).sum())} trial(s) without a position"}
    if np.ptp(y) == 0:
        return {**rec, "reason": "all values equal"}
    if np.ptp(x) == 0:
        return {**rec, "reason": "all trials at the same position"}
    res = st.kendalltau(x, y)
    slope = float(st.theilslopes(y, x).slope)
    rec.update(statistic=float(res.statistic), p=float(res.pvalue), slope=slope)
    med = float(np.median(y))
    span = slope * float(np.ptp(x))
    rec["detail"] = (f"tau={float(res.statistic):+.2f}, Sen slope {slope:+.3g} per position"
                     + (f", {100.0 * span / abs(med):+.1f}% over the run" if med != 0 else ""))
    return rec


def _previous_test(per: pd.DataFrame, min_trials: int) -> dict[str, object]:
    """Run the Kruskal-Wallis test across the environments that ran just before."""
    n_all = len(per)
    rec: dict[str, object] = {"test": "kruskal-wallis", "n": n_all}
    if n_all < min_trials:
        return {**rec, "reason": f"too few trials (n={n_all}, need {min_trials})"}
    prev = per["previous"].astype("string")
    first = int(prev.isna().sum())
    sizes = prev.dropna().value_counts()
    groups = sorted(str(g) for g in sizes[sizes >= 2].index)
    small = int(sizes[sizes < 2].sum())
    left = [f"{first} first trial(s) on the host (nothing ran before)"] if first else []
    if small:
        left.append(f"{small} trial(s) whose previous environment occurs only once")
    note = ("left out: " + "; ".join(left)) if left else None
    if len(groups) < 2:
        why = (f"fewer than 2 previous environments with >= 2 trials "
               f"({', '.join(f'{k}: {v}' for k, v in sizes.items()) or 'none'})")
        return {**rec, "reason": why if note is None else f"{why}; {note}"}
    samples = [per.loc[(prev == g).fillna(False).to_numpy(dtype=bool), "value"]
               .to_numpy(dtype="float64") for g in groups]
    rec["n"] = int(sum(s.size for s in samples))
    res = kruskal_wallis(*samples)
    if res.reason:
        return {**rec, "reason": res.reason if note is None else f"{res.reason}; {note}"}
    medians = sorted(((float(np.median(s)), g) for s, g in zip(samples, groups, strict=True)),
                     reverse=True)
    rec.update(statistic=res.statistic, p=res.pvalue, reason=note)
    rec["detail"] = "median " + ", ".join(f"{_fmt(m)} after {g}" for m, g in medians)
    return rec


def order_effects(measurements: pd.DataFrame, trials: pd.DataFrame, *,
                  metric: str | Sequence[str] | None = None, alpha: float = 0.05,
                  min_trials: int = MIN_TRIALS) -> pd.DataFrame:
    """Test, per cell and metric, whether a value depends on when it was measured.

    Only trials with status ``done`` that are not warm-ups (neither in ``trials`` nor in the
    measurements) are used. The rows of one group are those of a cell (environment, benchmark
    and parameters), a metric, a unit and the measurements' ``p_*`` values (a parser's own
    parameters such as a percentile make separate groups); a trial with several values in one
    group contributes their mean. Two tests per group:

    - ``mann-kendall``: the Mann-Kendall trend test, i.e. Kendall's tau between the value and
      the trial's position in its host's execution order (scipy picks the exact p-value for
      small samples without ties), with Sen's slope (the median of the pairwise slopes) in
      value units per position. Rank-based, so one outlier does not make a trend.
    - ``kruskal-wallis``: the Kruskal-Wallis test across the groups of trials that have the
      same environment just before them on the host. The host's first trial (nothing before)
      and previous environments with a single trial are left out (said in ``reason``); it needs
      at least 2 groups of at least 2 trials.

    The Holm correction runs over every p-value of the table (both tests, all groups); a test
    that could not be made has NaN p and is not part of the family.

    Parameters
    ----------
    measurements : pandas.DataFrame
        Tidy measurements: run_id, metric, value; unit, warmup and p_* columns when present.
    trials : pandas.DataFrame
        One row per trial (trials.parquet): run_id, cell, position, previous; benchmark,
        environment, variant, env_name, host, warmup and status when present.
    metric : str, sequence of str or None
        The metrics to test; None tests every metric (groups with fewer than ``min_trials``
        trials get rows that say "not testable: too few trials").
    alpha : float
        Family-wise significance level.
    min_trials : int
        Measured non-warm-up trials a group needs to be tested (at least 3).

    Returns
    -------
    pandas.DataFrame
        One row per group and test: cell, benchmark, environment, variant, env_name, host,
        metric, unit, the p_* columns, n (trials used), test, statistic (tau or H), slope
        (Sen's slope, mann-kendall only), p, p_holm, significant (NA when not tested), finding
        (plain words: "no drift with position detected", "value drifts with position (tau=...)",
        "depends on the previous environment (median ... after ...)", "not testable: ...") and
        reason (why a test was not made, or what was left out).

    Raises
    ------
    MissingColumnError, EmptyInputError
        When a needed column is missing or either frame has no rows.
    StatsError
        For ``alpha`` outside (0, 1) or ``min_trials`` < 3.
    """
    check_level(alpha, "alpha")
    if isinstance(min_trials, bool) or not isinstance(min_trials, int | np.integer) \
            or min_trials < 3:
        raise StatsError(f"min_trials must be an integer >= 3, got {min_trials!r}")
    require_columns(measurements, ["run_id", "metric", "value"], "order_effects (measurements)")
    require_columns(trials, list(_TRIAL_COLUMNS), "order_effects (trials)")
    require_rows(measurements, "order_effects (measurements)")
    require_rows(trials, "order_effects (trials)")
    df = _usable(measurements, trials, metric)
    params = [c for c in measurements.columns if c.startswith("p_")]
    keys = ["cell", "metric", *(["unit"] if "unit" in df else []), *params]
    records = []
    for key, rows in iter_groups(df, keys):
        labels = {c: rows[c].iloc[0] for c in _LABELS if c in rows}
        per, missing = _per_trial(rows)
        note = f"{missing} trial(s) without a finite value left out" if missing else None
        for rec in (_position_test(per, min_trials), _previous_test(per, min_trials)):
            reason = "; ".join(r for r in (rec.get("reason"), note) if r) or None
            records.append({**key, **labels, **rec, "reason": reason})
    columns = [*ORDER_COLUMNS[:8], *params, *ORDER_COLUMNS[8:]]
    out = pd.DataFrame.from_records(records, columns=[*columns, "detail"])
    for c in ("cell", "benchmark", "environment", "variant", "env_name", "host", "metric", "unit",
              "test", "reason"):
        out[c] = out[c].astype("string")
    for c in params:
        try:
            out[c] = out[c].astype(measurements[c].dtype)
        except (TypeError, ValueError):
            pass
    out["n"] = out["n"].astype("Int64")
    for c in ("statistic", "slope", "p"):
        out[c] = out[c].astype("float64")
    p = out["p"].to_numpy(dtype="float64")
    out["p_holm"] = holm(p, alpha) if len(out) else np.array([], dtype="float64")
    sig = pd.array([pd.NA if not math.isfinite(q) else bool(q < alpha) for q in out["p_holm"]],
                   dtype="boolean")
    out["significant"] = sig
    out["finding"] = pd.array([_finding(r) for r in out.itertuples(index=False)], dtype="string")
    return out[columns].reset_index(drop=True)


def _finding(row) -> str:
    """Put one test's outcome in plain words."""
    if pd.isna(row.significant):
        return f"not testable: {row.reason}" if isinstance(row.reason, str) else "not testable"
    position = row.test == "mann-kendall"
    if not row.significant:
        return ("no drift with position detected" if position
                else "no dependence on the previous environment detected")
    if position:
        return f"value drifts with position ({row.detail})"
    return f"depends on the previous environment ({row.detail})"


# --- noise summary and report --------------------------------------------------------------

def _split_flags(value: object) -> list[str]:
    """Return the flag names of one ``noise_flags`` cell (comma-joined string, list, or NA)."""
    if value is None:
        return []
    if isinstance(value, list | tuple | np.ndarray):
        return [str(v).strip() for v in value if str(v).strip()]
    try:
        if pd.isna(value):
            return []
    except (TypeError, ValueError):
        pass
    return [s.strip() for s in str(value).split(",") if s.strip()]


def noise_summary(trials: pd.DataFrame) -> pd.DataFrame:
    """Count the noise flags per environment.

    Parameters
    ----------
    trials : pandas.DataFrame
        One row per trial (trials.parquet): env_name and noise_flags (comma-joined names, NA
        when none); noise_throttle_after when present.

    Returns
    -------
    pandas.DataFrame
        One row per env_name (sorted): trials (rows, whatever their status), flagged (trials
        with at least one flag), one count column per flag (load, swap, throttle, then any other
        name found), share_flagged (flagged / trials), and throttle_measured (trials whose
        throttle counter was read after the trial; NA when the column is absent): a host
        without throttle counters can never be flagged for throttling.

    Raises
    ------
    MissingColumnError
        When env_name or noise_flags is missing.
    """
    require_columns(trials, ["env_name", "noise_flags"], "noise_summary")
    flags = [_split_flags(v) for v in trials["noise_flags"]]
    names = list(FLAGS) + sorted({f for fs in flags for f in fs} - set(FLAGS))
    env = trials["env_name"].astype("string").fillna("<unknown>").to_numpy(dtype=object)
    throttle = (trials["noise_throttle_after"].notna().to_numpy()
                if "noise_throttle_after" in trials else None)
    records = []
    for name in sorted(set(env)):
        idx = np.flatnonzero(env == name)
        rec: dict[str, object] = {"env_name": name, "trials": len(idx),
                                  "flagged": sum(1 for i in idx if flags[i])}
        for f in names:
            rec[f] = sum(1 for i in idx if f in flags[i])
        rec["share_flagged"] = rec["flagged"] / len(idx)
        rec["throttle_measured"] = int(throttle[idx].sum()) if throttle is not None else pd.NA
        records.append(rec)
    columns = ["env_name", "trials", "flagged", *names, "share_flagged", "throttle_measured"]
    out = pd.DataFrame.from_records(records, columns=columns)
    out["env_name"] = out["env_name"].astype("string")
    for c in ["trials", "flagged", *names, "throttle_measured"]:
        out[c] = out[c].astype("Int64")
    out["share_flagged"] = out["share_flagged"].astype("float64")
    return out


def _plural(n: int, word: str) -> str:
    """Return ``"1 trial"`` / ``"3 trials"``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _cell_label(row: pd.Series, params: Sequence[str]) -> str:
    """Name a group of :func:`order_effects` for a reader: environment, benchmark, parameters."""
    env = row.get("env_name")
    env = row.get("environment") if env is None or pd.isna(env) else env
    parts = [str(v) for v in (env, row.get("benchmark")) if v is not None and not pd.isna(v)]
    parts += [f"{c[2:]}={row[c]}" for c in params if not pd.isna(row[c])]
    if not parts:
        parts = [str(row["cell"])]
    return " ".join(parts) + f", {row['metric']}"


def baseline_of(campaign) -> str | None:
    """Return a campaign's baseline environment (None without one).

    The verdicts stopping rule's, else the environment named ``native``, else the first native one.
    """
    from overhead.campaign.stopping import rule_of

    rule = rule_of(campaign)
    if rule is not None and rule.baseline is not None:
        return rule.baseline
    if "native" in campaign.environments:
        return "native"
    return next((n for n, e in campaign.environments.items() if e.kind == "native"), None)


def judged_values(measurements: pd.DataFrame, trials: pd.DataFrame, campaign) -> dict:
    """Return (cell id, index of the judged quantity) -> its values, one per done trial.

    One value per done, non-warm-up trial of each cell, for each ``judge`` quantity of its
    benchmark (:func:`overhead.campaign.plan.judged_value`): what the verdicts stopping rule
    decides on, read back from the tidy tables.
    """
    from overhead.campaign.plan import Judged, judged_value

    judged = {n: b.judge for n, b in campaign.benchmarks.items() if b.judge}
    if not judged or "cell" not in trials or measurements.empty:
        return {}
    ok = trials[(trials["status"] == "done") & ~_flag(trials["warmup"])]
    if "round" in ok:
        ok = ok.sort_values("round", kind="stable")
    by_run = {r: g for r, g in measurements[measurements["run_id"].isin(set(ok["run_id"]))]
              .groupby("run_id", sort=False)}
    values: dict = {}
    rounds = ok["round"] if "round" in ok else pd.Series(range(1, len(ok) + 1), index=ok.index)
    for run_id, cid, bench, rnd in zip(ok["run_id"], ok["cell"], ok["benchmark"], rounds,
                                       strict=True):
        rows = by_run.get(run_id)
        if rows is None or bench not in judged:
            continue
        for i, judge in enumerate(judged[bench]):
            v, hib = judged_value(rows, judge)
            if v is None:
                continue
            values[(cid, i)] = (values.get((cid, i)) or Judged(())).add(v, int(rnd), hib)
    return values


def _design_of(campaign):
    """Return the stopping rule's design of a cell's comparisons (None: a fixed count, one look)."""
    from overhead.campaign.stopping import rule_of

    rule = rule_of(campaign)
    return None if rule is None or rule.baseline is None else rule.design_of


def comparisons(measurements: pd.DataFrame, trials: pd.DataFrame, campaign,
                baseline: str | None = None) -> pd.DataFrame:
    """Return every judged comparison of the campaign's cells with ``baseline``'s, decided.

    As the stopping rule decides them (:func:`overhead.campaign.plan.compare_cells`), against
    any environment of the campaign (default :func:`baseline_of`): Docker as the baseline of
    the other containers, say.

    Returns
    -------
    pandas.DataFrame
        One row per comparison: key, environment, baseline, benchmark, params, quantity,
        metric, verdict, n, n_baseline, ratio, low, high, method, margin, margin_low_pct,
        margin_high_pct, margin_source, margin_reason, trials_needed, words. Empty without a baseline or judged values.
    """
    from overhead.campaign.plan import cells, compare_cells

    base = baseline or baseline_of(campaign)
    values = judged_values(measurements, trials, campaign)
    if base is None or not values:
        return pd.DataFrame()
    found = list(compare_cells(campaign, cells(campaign), values, base,
                               design_of=_design_of(campaign)))
    return pd.DataFrame([{"key": key, **r} for key, _, _, r in found])


def verdict_lines(measurements: pd.DataFrame, trials: pd.DataFrame, campaign,
                  plan: Mapping | None = None) -> list[str]:
    """Return each judged comparison's verdict vs the baseline, with why its trials stopped.

    The quantities are the benchmarks' ``judge`` lists; the baseline is the verdicts stopping
    rule's, else the environment named ``native``, else the first native one. One value per
    done, non-warm-up trial (:func:`overhead.campaign.plan.judged_value`), decided as the
    stopping rule decides (:func:`overhead.campaign.plan.compare_cells`).

    Parameters
    ----------
    measurements, trials : pandas.DataFrame
        The campaign's tidy measurements and trials.parquet.
    campaign : overhead.campaign.inventory.Campaign
        The campaign (its judges, environments and stopping rule).
    plan : mapping, optional
        The last run's plan.json (its ``decisions`` say why each comparison stopped).

    Returns
    -------
    list of str
        Lines of plain text.
    """
    from overhead.campaign.plan import cells, compare_cells

    base = baseline_of(campaign)
    judged = {n: b.judge for n, b in campaign.benchmarks.items() if b.judge}
    if base is None or not judged:
        why = "no baseline environment" if base is None else "no benchmark has judge: quantities"
        return [f"verdicts: none ({why})"]
    if "cell" not in trials or measurements.empty:
        return ["verdicts: no measured trials yet"]
    values = judged_values(measurements, trials, campaign)
    decisions = (plan or {}).get("decisions", {})
    found = list(compare_cells(campaign, cells(campaign), values, base,
                               design_of=_design_of(campaign)))
    counts = pd.Series([r["verdict"] for *_, r in found], dtype="object").value_counts()
    lines = [f"verdicts vs {base} ({len(found)} comparisons: "
             + ", ".join(f"{int(v)} {k}" for k, v in counts.items())
             + "; margins from data/reference/margins.yml):"]
    for key, _, _, r in sorted(found, key=lambda f: (f[3]["benchmark"], f[3]["environment"], f[0])):
        axes = campaign.benchmarks[r["benchmark"]].params
        params = " ".join(f"{k}={v}" for k, v in r["params"].items() if isinstance(axes.get(k), list))
        line = (f"  {r['environment']} {r['benchmark']} [{r['quantity']}]"
                + (f" {params}" if params else "") + f": {r['words']}")
        why = decisions.get(key, {}).get("why")
        if why:
            line += f" | stopped: {why.split(':', 1)[0]}"
        lines.append(line)
    return lines


def report(measurements: pd.DataFrame, trials: pd.DataFrame, *, alpha: float = 0.05,
           min_trials: int = MIN_TRIALS, max_listed: int = 10, campaign=None,
           plan: Mapping | None = None) -> str:
    """Return the lines ``overhead status FILE --analysis`` prints: counts, noise, order effects.

    It never says that there is no order effect when nothing could be tested: then it says
    "not testable" and why.

    Parameters
    ----------
    measurements : pandas.DataFrame
        The campaign's tidy measurements.
    trials : pandas.DataFrame
        The campaign's trials.parquet.
    alpha : float
        Family-wise significance level of :func:`order_effects`.
    min_trials : int
        Trials a cell needs to be tested.
    max_listed : int
        How many significant findings to name before "... and N more".
    campaign : Campaign, optional
        With it, the verdicts of the judged comparisons follow (:func:`verdict_lines`).
    plan : mapping, optional
        The last run's plan.json, for why each comparison stopped.

    Returns
    -------
    str
        A few lines of plain text (no trailing newline).

    Raises
    ------
    MissingColumnError
        When the trials lack a column :func:`order_effects` or :func:`noise_summary` needs.
    StatsError
        For a bad ``alpha`` or ``min_trials``.
    """
    check_level(alpha, "alpha")
    lines = []
    if len(trials) == 0:
        return "analysis: no trials yet: nothing to analyse"
    status = (trials["status"].astype("string").fillna("unknown").value_counts()
              if "status" in trials else pd.Series(dtype="int64"))
    parts = [", ".join(f"{int(v)} {k}" for k, v in sorted(status.items()))]
    if "warmup" in trials:
        parts.append(f"{int(_flag(trials['warmup']).sum())} warm-up")
    parts = [x for x in parts if x]
    hosts = trials["host"].nunique() if "host" in trials else None
    cells = trials["cell"].nunique() if "cell" in trials else None
    where = ", ".join(x for x in (
        _plural(hosts, "host") if hosts is not None else None,
        _plural(cells, "cell") if cells is not None else None) if x)
    lines.append(f"analysis: {_plural(len(trials), 'trial')}"
                 + (f" ({'; '.join(parts)})" if parts else "") + (f" on {where}" if where else ""))
    lines += _noise_lines(trials)
    lines += _isolation_lines(measurements, trials)
    lines += _order_lines(measurements, trials, alpha, min_trials, max_listed)
    if campaign is not None:
        lines += verdict_lines(measurements, trials, campaign, plan)
    return "\n".join(lines)


def _noise_lines(trials: pd.DataFrame) -> list[str]:
    """Return the noise part of :func:`report`."""
    if "noise_flags" not in trials or "env_name" not in trials:
        return ["noise: not recorded (the trials table has no noise_flags)"]
    s = noise_summary(trials)
    names = [c for c in s.columns if c not in ("env_name", "trials", "flagged", "share_flagged",
                                               "throttle_measured")]

    def counts(row) -> str:
        return ", ".join(f"{f} {int(row[f])}" for f in names)

    total = s[["trials", "flagged", *names]].sum()
    lines = [f"noise: {int(total['flagged'])} of {_plural(int(total['trials']), 'trial')} flagged "
             f"({counts(total)})"]
    for _, row in s.iterrows():
        lines.append(f"  {row['env_name']}: {int(row['flagged'])} of {int(row['trials'])} flagged"
                     + (f" ({counts(row)})" if row["flagged"] else ""))
    if s["throttle_measured"].notna().all():
        unmeasured = int((s["trials"] - s["throttle_measured"]).sum())
        if unmeasured:
            lines.append(f"  throttling not measured in {unmeasured} of {int(total['trials'])} "
                         "trials (no thermal throttle counters on the host)")
    return lines


#: Columns of :func:`cell_spread`.
SPREAD_COLUMNS: tuple[str, ...] = ("env_name", "benchmark", "cell", "params", "metric", "quantity",
                                   "unit", "n", "mean", "sd", "cv", "multimodal", "modes")


def _within_trial(rows: pd.DataFrame, params: Sequence[str]) -> list[str]:
    """Return the named parameter columns that tell one trial's rows of one metric apart.

    HPCC reports ``flop_rate`` for HPL, DGEMM and FFT in one trial, and six RandomAccess
    variants: each such row is a quantity of its own (named by text: kernel, scope,
    direction), and averaging them gives a number of none of them. Numeric parameters that
    vary within a trial (a histogram's bins, a percentile) are not names: see
    :func:`cell_spread`.
    """
    if not len(rows) or not params:
        return []
    most = rows.groupby("run_id", sort=False)[list(params)].nunique(dropna=False).max()
    out = []
    for c in params:
        if most[c] > 1:
            seen = rows[c].dropna()
            if len(seen) and pd.to_numeric(seen.astype(str), errors="coerce").isna().all():
                out.append(c)
    return out


def cell_spread(measurements: pd.DataFrame, trials: pd.DataFrame,
                metrics: Mapping[str, Sequence[str]] | None = None,
                alpha: float = 0.05, judges: Mapping[str, Sequence] | None = None) -> pd.DataFrame:
    """Return each cell's between-trial spread: the CV of its trial means, and whether they form two groups.

    A trial's value of a metric is its row of that metric, one per quantity: rows of one
    metric that a trial reports several times with different parameters (HPCC's
    ``flop_rate`` for HPL, DGEMM and FFT) are separate quantities, named by the parameters
    that tell them apart (``params``). ``judges`` (benchmark -> its
    :class:`~overhead.campaign.inventory.Judge` list) adds each judged quantity exactly as the
    verdicts compute it (:func:`overhead.campaign.judging.judged_value`: its ``where`` filter,
    its mean or sum), named in ``quantity``; a metric row that is the same selection is not
    repeated. A metric a trial reports once per bin or percentile (a distribution: fio's
    ``clat_bin_count``, ``clat_percentile``) is no quantity and has no row. The done,
    non-warm-up trials of a cell (excluded trials have no rows) give ``n``
    values, their mean, SD and CV (SD / |mean|, NaN for n < 2 or a zero mean), and
    :func:`overhead.stats.modes.gap_test` at ``alpha``: ``multimodal`` True (two groups, in
    ``modes``), False (tested, none found), NA (n < 4).

    Parameters
    ----------
    measurements, trials : pandas.DataFrame
        The campaign's tidy measurements and trials.parquet.
    metrics : mapping of benchmark to metric names, optional
        Which metrics to report per benchmark (default: every metric).
    alpha : float
        The gap test's level.
    judges : mapping of benchmark to Judge list, optional
        The campaign's judged quantities (``Campaign.benchmarks[b].judge``).
    """
    from overhead.campaign import judging
    from overhead.stats.modes import gap_test

    df = _usable(measurements, trials, None)
    if metrics is not None:
        keep = np.zeros(len(df), dtype=bool)
        bench = df["benchmark"].astype("string").to_numpy(dtype=object) if "benchmark" in df else None
        met = df["metric"].astype("string").to_numpy(dtype=object)
        for b, ms in metrics.items():
            keep |= (bench == b) & np.isin(met, list(ms)) if bench is not None else np.isin(met, list(ms))
        df = df[keep]
    params = sorted(c for c in df.columns if c.startswith("p_"))
    records = []
    if len(df):
        v = df["value"].to_numpy(dtype="float64", na_value=np.nan)
        df = df[np.isfinite(v)]
    # a cell is named by the parameters that tell its benchmark's cells apart (the parsers add
    # many that every cell shares), and a quantity by those that tell a trial's rows apart
    varying: dict = {}
    within: dict = {}
    if len(df) and "benchmark" in df:
        for bench, rows in df.groupby("benchmark", sort=False, dropna=False):
            varying[bench] = [c for c in params if rows[c].nunique(dropna=True) > 1]
            for metric, mrows in rows.groupby("metric", sort=False, dropna=False):
                within[(bench, metric)] = _within_trial(mrows, params)

    def record(first, label, metric, quantity, unit, per):
        n = len(per)
        mean = float(np.mean(per)) if n else math.nan
        sd = float(np.std(per, ddof=1)) if n >= 2 else math.nan
        cv = sd / abs(mean) if n >= 2 and mean != 0 else math.nan
        test = gap_test(per, alpha)
        records.append({"env_name": first.get("env_name"), "benchmark": first.get("benchmark"),
                        "cell": first.get("cell"), "params": label, "metric": metric,
                        "quantity": quantity, "unit": unit, "n": n, "mean": mean, "sd": sd,
                        "cv": cv, "multimodal": test.multimodal, "modes": test.describe()})

    # the parameters of the cell (constant within each cell) that tell the benchmark's cells apart
    cell_level: dict = {}
    if len(df) and "cell" in df:
        for bench, rows in df.groupby("benchmark", sort=False, dropna=False):
            cand = varying.get(bench, [])
            most = rows.groupby("cell", sort=False)[cand].nunique(dropna=True).max() if cand else {}
            cell_level[bench] = [c for c in cand if most[c] <= 1]

    def name(first, extra) -> str:
        cols = list(dict.fromkeys([*cell_level.get(first.get("benchmark"), []), *extra]))
        return ", ".join(f"{c[2:]}={first[c]}" for c in cols if c in first and pd.notna(first[c]))

    judged_rows: set[tuple] = set()
    if judges and len(df) and "benchmark" in df:
        for cell, rows in df.groupby("cell", sort=True, dropna=False):
            first = rows.iloc[0]
            for judge in judges.get(first.get("benchmark"), ()) or ():
                sel = judging.judged_rows(rows, judge)
                if sel.empty:
                    continue
                grouped = sel.groupby("run_id", sort=False)["value"]
                per = (grouped.sum() if judge.combine == "sum" else grouped.mean()).to_numpy(dtype="float64")
                judged_rows.add((cell, judge.metric, frozenset(sel.index)))
                where = ", ".join(f"{k.removeprefix('p_')}={'null' if v is None else v}"
                                  for k, v in judge.where.items())
                label = ", ".join(x for x in (name(first, []), where) if x)
                units = sel["unit"].dropna().unique() if "unit" in sel else []
                record(first, label, judge.metric, judge.label, units[0] if len(units) == 1 else None, per)
    for (cell, metric), rows in df.groupby(["cell", "metric"], sort=True, dropna=False):
        bench = rows.iloc[0].get("benchmark")
        split = within.get((bench, metric), [])
        groups = rows.groupby(split, sort=True, dropna=False) if split else [((), rows)]
        for _, part in groups:
            if (cell, metric, frozenset(part.index)) in judged_rows:
                continue  # the judged quantity above, the same rows
            if part["run_id"].duplicated().any():
                continue  # a distribution (a row per bin or percentile): no one quantity
            per = part.groupby("run_id", sort=False)["value"].mean().to_numpy(dtype="float64")
            first = part.iloc[0]
            record(first, name(first, split), metric, None, first.get("unit") if "unit" in part else None, per)
    out = pd.DataFrame.from_records(records, columns=list(SPREAD_COLUMNS))
    out["n"] = out["n"].astype("Int64")
    out["multimodal"] = out["multimodal"].astype("boolean")
    out["quantity"] = out["quantity"].astype("string")
    return out.sort_values(["benchmark", "env_name", "params", "metric"], kind="stable",
                           ignore_index=True)


def isolation_summary(trials: pd.DataFrame) -> pd.DataFrame:
    """Count per environment the trials flagged for interference, re-run and excluded.

    ``flagged``: attempts with an ``outside`` or ``steal`` flag (re-run ones and excluded
    ones); ``rerun``: attempts moved to ``interfered/`` (status ``interfered``), each run
    again; ``excluded``: trials kept flagged after their re-runs (status ``excluded``), whose
    rows are in no statistic; ``results``: done trials (the ones the statistics use).
    """
    require_columns(trials, ["env_name", "status"], "isolation_summary")
    status = trials["status"].astype("string").fillna("unknown")
    flags = [_split_flags(v) for v in trials["noise_flags"]] if "noise_flags" in trials else [
        [] for _ in range(len(trials))]
    flagged = np.array([any(f in INTERFERENCE for f in fs) for fs in flags], dtype=bool)
    env = trials["env_name"].astype("string").fillna("<unknown>")
    out = pd.DataFrame({"env_name": env, "flagged": flagged,
                        "rerun": (status == "interfered").to_numpy(dtype=bool),
                        "excluded": (status == "excluded").to_numpy(dtype=bool),
                        "results": (status == "done").to_numpy(dtype=bool)})
    g = out.groupby("env_name", sort=True)[["results", "flagged", "rerun", "excluded"]].sum()
    return g.reset_index().astype({c: "Int64" for c in ("results", "flagged", "rerun", "excluded")})


def _isolation_lines(measurements: pd.DataFrame, trials: pd.DataFrame) -> list[str]:
    """Return the isolation part of :func:`report`: interference per environment, spread per cell."""
    if "status" not in trials or "env_name" not in trials:
        return []
    s = isolation_summary(trials)
    lines = [f"isolation: {int(s['flagged'].sum())} attempts flagged for interference (CPU time "
             f"outside the trial's cgroup, or steal): {int(s['rerun'].sum())} re-run, "
             f"{int(s['excluded'].sum())} excluded after their re-runs"]
    for _, row in s.iterrows():
        lines.append(f"  {row['env_name']}: {int(row['results'])} results, {int(row['flagged'])} "
                     f"flagged, {int(row['rerun'])} re-run, {int(row['excluded'])} excluded")
    try:
        spread = cell_spread(measurements, trials)
    except (KeyError, StatsError):
        return lines
    if len(spread):
        cv = spread["cv"].dropna()
        if len(cv):
            lines.append(f"between-trial CV over {len(cv)} cell-metrics: median "
                         f"{cv.median():.1%}, largest {cv.max():.1%} "
                         f"({spread.loc[cv.idxmax(), 'env_name']} "
                         f"{spread.loc[cv.idxmax(), 'benchmark']} "
                         f"{spread.loc[cv.idxmax(), 'metric']})")
        multi = spread[spread["multimodal"].fillna(False)]
        untested = int(spread["multimodal"].isna().sum())
        lines.append(f"two groups of trial means (gap test, 5% level; about 1 in 20 unimodal "
                     f"cells is flagged by chance): {len(multi)} of "
                     f"{len(spread) - untested} tested cell-metrics"
                     + (f" ({untested} with fewer than 4 trials not tested)" if untested else ""))
        for _, row in multi.iterrows():
            lines.append(f"  {row['env_name']} {row['benchmark']} {row['params']} "
                         f"{row['metric']}: {row['modes']}")
    return lines


def _order_lines(measurements: pd.DataFrame, trials: pd.DataFrame, alpha: float,
                 min_trials: int, max_listed: int) -> list[str]:
    """Return the order-effect part of :func:`report`."""
    need = f"need {min_trials} measured non-warm-up trials per cell"
    if len(measurements) == 0:
        return [f"order effects: not testable: no measured values ({need})"]
    table = order_effects(measurements, trials, alpha=alpha, min_trials=min_trials)
    if len(table) == 0:
        return [f"order effects: not testable: no measured non-warm-up trials ({need})"]
    cols = list(table.columns)
    params = cols[cols.index("unit") + 1:cols.index("n")]
    tested = table["p"].notna()
    by_cell = table.assign(_tested=tested, _sig=table["significant"].fillna(False))
    per_cell = by_cell.groupby("cell", dropna=False).agg(
        tested=("_tested", "any"), sig=("_sig", "any"), n=("n", "max"))
    n_tested = int(per_cell["tested"].sum())
    n_cells = len(per_cell)
    untested = per_cell[~per_cell["tested"]]
    lines = []
    holm_txt = f"Holm, alpha {alpha:g}; {_plural(int(tested.sum()), 'test')}"
    if n_tested == 0:
        few = untested["n"].fillna(0) < min_trials
        if few.all():
            most = int(untested["n"].fillna(0).max())
            return [f"order effects: not testable: too few trials ({need}; the most any cell "
                    f"has is {most})"]
        return ["order effects: not testable in any of the "
                f"{_plural(n_cells, 'cell')}: {_common_reason(table)}"]
    hits = table[table["significant"].fillna(False).to_numpy(dtype=bool)]
    n_sig = int(per_cell["sig"].sum())
    if n_sig == 0:
        lines.append(f"order effects: no significant order effect in "
                     f"{_plural(n_tested, 'cell')} ({holm_txt})")
    else:
        lines.append(f"order effects: significant in {n_sig} of "
                     f"{_plural(n_tested, 'cell')} tested ({holm_txt}):")
        for _, row in hits.head(max_listed).iterrows():
            lines.append(f"  {_cell_label(row, params)}: {row['finding']}")
        if len(hits) > max_listed:
            lines.append(f"  ... and {len(hits) - max_listed} more (see order_effects)")
    prev = table[(table["test"] == "kruskal-wallis") & table["cell"].isin(
        per_cell.index[per_cell["tested"]])]
    prev_cells = prev.groupby("cell")["p"].apply(lambda p: p.notna().any())
    if (~prev_cells).any():
        lines.append(f"  the previous-environment test was not testable in "
                     f"{int((~prev_cells).sum())} of these cells (too few trials per previous "
                     "environment)")
    if len(untested):
        few = int((untested["n"].fillna(0) < min_trials).sum())
        other = len(untested) - few
        if few:
            lines.append(f"  not testable: too few trials in {_plural(few, 'cell')} ({need})")
        if other:
            lines.append(f"  not testable in {_plural(other, 'other cell')}: "
                         f"{_common_reason(table[table['cell'].isin(untested.index)])}")
    return lines


def _common_reason(table: pd.DataFrame) -> str:
    """Return the most frequent reason among untested rows (for a one-line summary)."""
    reasons = table.loc[table["p"].isna(), "reason"].dropna()
    if reasons.empty:
        return "no usable values"
    return str(reasons.value_counts().index[0])
