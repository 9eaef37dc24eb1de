"""Cut a monitor's time series recorded over back-to-back benchmark runs into those runs.

A system monitor (dstat, mpstat, vmstat) sampling the CPU once a second over a whole campaign
records no run boundaries; the runs show as stretches of busy samples between idle gaps.
:func:`segment_runs` finds them and checks that exactly the expected runs were found, so that
pairing them with the benchmark's reports by order cannot silently shift.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from overhead.stats._common import StatsError

__all__ = ["SegmentationError", "segment_runs"]


class SegmentationError(StatsError):
    """The series could not be cut into the expected runs; the message says where."""


def segment_runs(idle: Sequence[float] | np.ndarray, n_runs: int, *, busy_below: float = 95.0,
                 min_length: int = 30, expected_length: float | None = None, tolerance: int = 2,
                 trim: int = 1, breaks: Sequence[object] | np.ndarray | None = None) -> pd.DataFrame:
    """Cut a 1-s CPU-idle series recorded over back-to-back benchmark runs into those runs.

    Method. A sample is *busy* when its idle percentage is below ``busy_below``. Maximal
    stretches of consecutive busy samples are candidate runs; stretches shorter than
    ``min_length`` samples are dropped as blips (they are listed in ``attrs["dropped"]``).
    Stretches never span a ``breaks`` boundary (a new dstat session restarts the sample index
    and there is no sample between sessions). Exactly ``n_runs`` stretches must remain, else
    SegmentationError. With ``expected_length`` (samples a run should cover, e.g. the sysbench
    run time in seconds), every stretch must be within ``tolerance`` samples of it. Finally
    ``trim`` samples are removed at each end of every stretch: a run rarely starts or ends on
    a sample boundary, so its first and last 1-s samples are partly idle and would bias a
    run's mean towards idle (more at high load). The runs are numbered in time order; pairing
    them with the benchmark's reports is the caller's job (by order).

    Failure modes (all but the last raise, because pairing by order would silently shift every
    later run):

    - a run too light to push idle below ``busy_below`` vanishes (too few stretches);
    - two runs separated by less than one idle sample merge (one stretch about twice as long:
      fails the length check, or gives too few stretches);
    - a non-benchmark burst of ``min_length`` samples or more (a database load, a cron job)
      adds a stretch (too many);
    - a stall inside a run (idle above the threshold for a sample or more) splits it (too many,
      or a short stretch);
    - an aborted run gives a short stretch (length check, when ``expected_length`` is given);
    - not detected: dstat samples that are not 1 s apart (dstat falls behind under load), so
      lengths are in samples, not seconds; and a run whose partial edge samples are busier
      than the threshold is still trimmed by ``trim`` only, which is why edges are dropped
      rather than weighted.

    Parameters
    ----------
    idle : array-like
        CPU idle in percent, one value per sample, in time order (drop dstat's first row of
        every session first: it averages since boot).
    n_runs : int
        Runs expected in the series.
    busy_below : float
        Idle percentage under which a sample counts as busy.
    min_length : int
        Shortest stretch (samples) that can be a run.
    expected_length : float or None
        Samples a run should cover (None: no length check).
    tolerance : int
        Allowed deviation from ``expected_length`` in samples.
    trim : int
        Samples dropped at each end of every run before averaging.
    breaks : array-like or None
        Session label of every sample; stretches are cut where it changes.

    Returns
    -------
    pandas.DataFrame
        run (0-based, time order), first, last (positions of the busy stretch in ``idle``,
        inclusive), length, keep_first, keep_last (positions after trimming, inclusive),
        n_kept, gap_before (idle samples since the previous run; NaN for the first and across
        a break). ``attrs["dropped"]`` lists the (first, last) of the blips dropped.

    Raises
    ------
    SegmentationError
        When other than ``n_runs`` stretches remain, a stretch is off ``expected_length`` by
        more than ``tolerance``, trimming would leave nothing of a stretch, or the series is
        empty, not 1-D, holds NaN, or does not match ``breaks`` in length.
    """
    x = np.asarray(idle, dtype="float64")
    if x.ndim != 1 or x.size == 0:
        raise SegmentationError("segment_runs: need a non-empty 1-D idle series")
    if np.isnan(x).any():
        raise SegmentationError(f"segment_runs: {int(np.isnan(x).sum())} idle values are NaN "
                                f"(first at position {int(np.flatnonzero(np.isnan(x))[0])})")
    busy = x < busy_below
    session = np.zeros(x.size, dtype="int64")
    if breaks is not None:
        b = pd.Series(np.asarray(breaks))
        if len(b) != x.size:
            raise SegmentationError(f"segment_runs: {len(b)} break labels for {x.size} samples")
        session = (b != b.shift()).cumsum().to_numpy() - 1
    # a stretch starts where busy begins or the session changes while busy
    start = busy & (np.r_[True, ~busy[:-1]] | np.r_[True, session[1:] != session[:-1]])
    end = busy & (np.r_[~busy[1:], True] | np.r_[session[1:] != session[:-1], True])
    firsts, lasts = np.flatnonzero(start), np.flatnonzero(end)
    lengths = lasts - firsts + 1
    keep = lengths >= min_length
    dropped = [(int(f), int(last)) for f, last, k in zip(firsts, lasts, keep, strict=True) if not k]
    firsts, lasts, lengths = firsts[keep], lasts[keep], lengths[keep]
    if len(firsts) != n_runs:
        ls = pd.Series(lengths).value_counts().sort_index().to_dict()
        raise SegmentationError(
            f"segment_runs: found {len(firsts)} busy stretches of >= {min_length} samples (idle < "
            f"{busy_below:g}%), expected {n_runs}; stretch lengths {ls}; {len(dropped)} blips dropped")
    if expected_length is not None:
        off = np.abs(lengths - expected_length) > tolerance
        if off.any():
            where = [(int(i), int(firsts[i]), int(lengths[i])) for i in np.flatnonzero(off)[:5]]
            raise SegmentationError(
                f"segment_runs: {int(off.sum())} stretches differ from {expected_length:g} samples by more "
                f"than {tolerance} (run, first position, length): {where}")
    if np.any(lengths <= 2 * trim):
        raise SegmentationError(f"segment_runs: trimming {trim} samples per end leaves nothing of a "
                                f"{int(lengths.min())}-sample stretch")
    gap = np.r_[np.nan, (firsts[1:] - lasts[:-1] - 1).astype("float64")]
    same = np.r_[False, session[firsts[1:]] == session[lasts[:-1]]]
    gap[~same] = np.nan
    out = pd.DataFrame({"run": np.arange(len(firsts)), "first": firsts, "last": lasts, "length": lengths,
                        "keep_first": firsts + trim, "keep_last": lasts - trim,
                        "n_kept": lengths - 2 * trim, "gap_before": gap})
    out.attrs["dropped"] = dropped
    return out
