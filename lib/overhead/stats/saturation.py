"""Saturation throughput and the knee of a closed-loop throughput curve.

Both read a table with columns N (concurrency) and X (throughput), such as the output of
:func:`overhead.stats.littles.littles_table`, and work on the curve of mean throughput per
concurrency level (trials averaged), one curve per group (default keys benchmark, environment,
variant).

- :func:`saturation`: "plateau" = mean of the per-level means within ``tolerance`` of the peak;
  "asymptote" = X_max of a least-squares fit X = X_max N / (K + N) to all points, an
  extrapolated limit that can exceed every measured point and ignores a decline after the peak.
- :func:`knee`: "fraction" = smallest measured concurrency whose mean throughput reaches
  ``fraction`` of the plateau, plus a linear interpolation between it and the level below;
  "kneedle" (Satopaa et al. 2011, without smoothing, for a rising concave curve) = concurrency
  and mean throughput scaled to [0, 1] by their minimum and maximum, the level where
  y_scaled - x_scaled is largest, i.e. the point furthest above the diagonal (a decline after
  the peak only lowers the later differences).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import optimize

from overhead.stats._common import (
    StatsError,
    check_choice,
    finish,
    iter_groups,
    norm_key,
    require_columns,
    require_rows,
)
from overhead.stats.littles import curve_keys


def _curve(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Return the mean throughput per concurrency level, N ascending (non-finite points out)."""
    n = rows["N"].to_numpy(dtype="float64")
    x = rows["X"].to_numpy(dtype="float64")
    ok = np.isfinite(n) & np.isfinite(x)
    s = pd.Series(x[ok]).groupby(n[ok]).mean().sort_index()
    return s.index.to_numpy(dtype="float64"), s.to_numpy(dtype="float64")


def _plateau(levels: np.ndarray, curve: np.ndarray, tolerance: float) -> tuple[float, np.ndarray]:
    peak = curve.max()
    near = curve >= (1.0 - tolerance) * peak
    return float(curve[near].mean()), levels[near]


def _asymptote(n: np.ndarray, x: np.ndarray) -> tuple[float, float, float, str | None]:
    """Fit X = xmax N / (K + N); returns xmax, its standard error, K, reason."""
    if np.unique(n).size < 3:
        return math.nan, math.nan, math.nan, "the asymptote fit needs >= 3 concurrency levels"
    p0 = [float(x.max()), float(np.median(n))]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            popt, pcov = optimize.curve_fit(lambda n_, a, k: a * n_ / (k + n_), n, x, p0=p0,
                                            bounds=([0, 0], [np.inf, np.inf]), maxfev=10000)
    except (RuntimeError, ValueError) as exc:
        return math.nan, math.nan, math.nan, f"asymptote fit failed: {exc}"
    se = float(np.sqrt(pcov[0, 0])) if np.isfinite(pcov[0, 0]) else math.nan
    return float(popt[0]), se, float(popt[1]), None


def saturation(table: pd.DataFrame, by: str | Sequence[str] | None = None, *,
               method: str = "plateau", tolerance: float = 0.05) -> pd.DataFrame:
    """Estimate the saturation throughput per curve.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`littles_table` (columns N, X).
    by : str, sequence of str or None
        Curve keys (default benchmark, environment, variant, those present).
    method : str
        "plateau": mean of the per-level mean throughputs that are within ``tolerance`` of the
        peak; "asymptote": X_max of a least-squares fit X = X_max N / (K + N) to all points.
    tolerance : float
        Fraction below the peak still counted as plateau (0.05 = within 5%).

    Returns
    -------
    pandas.DataFrame
        Keys, method, n_levels, peak (highest per-level mean), N_peak, saturation,
        saturation_se ("asymptote"), K ("asymptote"), plateau_N_min, plateau_N_max,
        plateau_levels ("plateau"), reason.
    """
    check_choice(method, ("plateau", "asymptote"), "method")
    if not 0 <= tolerance < 1:
        raise StatsError(f"tolerance must be in [0, 1), got {tolerance!r}")
    require_columns(table, ["N", "X"], "saturation")
    require_rows(table, "saturation")
    keys = curve_keys(table, by, "saturation")
    records = []
    for key, rows in iter_groups(table, keys):
        levels, curve = _curve(rows)
        rec = {**key, "method": method, "n_levels": int(levels.size)}
        if levels.size == 0:
            rec["reason"] = "no points with finite N and X"
            records.append(rec)
            continue
        i = int(np.argmax(curve))
        rec.update(peak=float(curve[i]), N_peak=float(levels[i]))
        if method == "plateau":
            if levels.size < 2:
                rec["reason"] = "one concurrency level: no curve"
            else:
                value, near = _plateau(levels, curve, tolerance)
                rec.update(saturation=value, plateau_N_min=float(near.min()),
                           plateau_N_max=float(near.max()), plateau_levels=int(near.size))
                if i == levels.size - 1:
                    rec["reason"] = "peak at the highest concurrency measured: may not be saturated"
        else:
            n = rows["N"].to_numpy(dtype="float64")
            x = rows["X"].to_numpy(dtype="float64")
            ok = np.isfinite(n) & np.isfinite(x)
            xmax, se, k, why = _asymptote(n[ok], x[ok])
            rec.update(saturation=xmax, saturation_se=se, K=k, reason=why)
        records.append(rec)
    columns = [*keys, "method", "n_levels", "peak", "N_peak", "saturation", "saturation_se", "K",
               "plateau_N_min", "plateau_N_max", "plateau_levels", "reason"]
    out = finish(records, keys, table, columns)
    out["method"] = out["method"].astype("string")
    out["plateau_levels"] = out["plateau_levels"].astype("Int64")
    return out


def knee(table: pd.DataFrame, by: str | Sequence[str] | None = None, *, method: str = "fraction",
         fraction: float = 0.9, tolerance: float = 0.05, plateau: str = "plateau") -> pd.DataFrame:
    """Find the concurrency where throughput stops growing (the knee of the throughput curve).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`littles_table`.
    by : str, sequence of str or None
        Curve keys (default benchmark, environment, variant, those present).
    method : str
        "fraction": smallest measured concurrency whose mean throughput reaches ``fraction``
        of the plateau (knee_N), and the linear interpolation between it and the level below
        (knee_N_interpolated); "kneedle": the level maximizing y_scaled - x_scaled over the
        whole curve (Satopaa et al. 2011, no smoothing; see the module docstring).
    fraction : float
        Fraction of the plateau for "fraction" (0.9 by default).
    tolerance, plateau : float, str
        How the plateau is computed for "fraction" (see :func:`saturation`).

    Returns
    -------
    pandas.DataFrame
        Keys, method, knee_N, knee_N_interpolated ("fraction"), knee_X (mean throughput at
        knee_N), saturation ("fraction"), reason. NaN with a reason when the curve has too few
        levels (kneedle needs 3) or is flat.
    """
    check_choice(method, ("fraction", "kneedle"), "method")
    if not 0 < fraction <= 1:
        raise StatsError(f"fraction must be in (0, 1], got {fraction!r}")
    require_columns(table, ["N", "X"], "knee")
    require_rows(table, "knee")
    keys = curve_keys(table, by, "knee")
    sat = saturation(table, keys, method=plateau, tolerance=tolerance) if method == "fraction" else None
    sat_of = {}
    if sat is not None:
        for _, row in sat.iterrows():
            sat_of[tuple(norm_key(row[k]) for k in keys)] = row["saturation"]
    records = []
    for key, rows in iter_groups(table, keys):
        levels, curve = _curve(rows)
        rec = {**key, "method": method}
        if method == "fraction":
            target = sat_of.get(tuple(norm_key(key[k]) for k in keys), math.nan)
            rec["saturation"] = target
            if not math.isfinite(target) or levels.size < 2:
                rec["reason"] = "no plateau"
            else:
                hit = np.flatnonzero(curve >= fraction * target)
                j = int(hit[0])
                rec.update(knee_N=float(levels[j]), knee_X=float(curve[j]))
                if j == 0:
                    rec["knee_N_interpolated"] = float(levels[0])
                    rec["reason"] = "already at the fraction at the lowest concurrency measured"
                else:
                    x0, x1 = curve[j - 1], curve[j]
                    n0, n1 = levels[j - 1], levels[j]
                    rec["knee_N_interpolated"] = float(n0 + (fraction * target - x0) * (n1 - n0) / (x1 - x0))
        else:
            if levels.size < 3:
                rec["reason"] = "kneedle needs >= 3 concurrency levels"
            elif curve.max() <= curve.min():
                rec["reason"] = "flat curve: no knee"
            else:
                xs = (levels - levels[0]) / (levels[-1] - levels[0])
                ys = (curve - curve.min()) / (curve.max() - curve.min())
                j = int(np.argmax(ys - xs))
                rec.update(knee_N=float(levels[j]), knee_X=float(curve[j]))
                if ys[j] - xs[j] <= 0:
                    rec["reason"] = "no point above the diagonal: curve not concave"
        records.append(rec)
    columns = [*keys, "method", "knee_N", "knee_N_interpolated", "knee_X", "saturation", "reason"]
    out = finish(records, keys, table, columns)
    out["method"] = out["method"].astype("string")
    return out


__all__ = ["knee", "saturation"]
