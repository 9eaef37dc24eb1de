"""Little's law for closed-loop load.

With N clients, each waiting for its answer before the next request: N = X * R, with N the
concurrency, X the throughput and R the mean latency.

- :func:`littles_law` / :func:`littles_table`: the residual N - X R (absolute and relative to
  N) where latency was measured, and the implied latency N / X everywhere (used where latency
  was not measured).
- :func:`latency_fit`: R = a + b N per environment by least squares, optionally only above
  saturation, where b = 1 / X_sat (so 1 / b estimates the saturation throughput).
- :func:`added_latency`: latency added per request by one environment over a baseline, with a
  confidence interval, from one regression over both environments' points: model "offset"
  (R = a + b N + delta * [environment], parallel lines: delta is the added latency per
  request) or "linear" (separate slopes; the difference evaluated at concurrency ``at``).
  Standard errors are heteroscedasticity-robust (HC3 by default): latency spread grows with N.
- :func:`~overhead.stats.saturation.saturation` and :func:`~overhead.stats.saturation.knee`
  (module :mod:`overhead.stats.saturation`) read the throughput curve of the same table.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
import statsmodels.api as sm

from overhead.schema import param_columns
from overhead.stats._common import (
    BaselineNotFoundError,
    EmptyInputError,
    PairingError,
    StatsError,
    UnitError,
    check_choice,
    check_level,
    finish,
    iter_groups,
    require_columns,
    require_rows,
)

#: Identity columns used to pair a throughput row with its latency row (those present).
PAIR_COLUMNS = ("campaign", "run_id", "trial", "benchmark", "environment", "variant", "host")
#: Columns of a curve (one fit per group) when ``by`` is not given (those present).
CURVE_COLUMNS = ("benchmark", "environment", "variant")


def littles_law(concurrency: object, throughput: object, latency: object) -> pd.DataFrame:
    """Compute Little's-law residuals for arrays of (N, X, R).

    Parameters
    ----------
    concurrency : array-like
        N, the number of outstanding requests (clients, threads, connections).
    throughput : array-like
        X, completions per second.
    latency : array-like
        R, mean latency in seconds; NaN where not measured.

    Returns
    -------
    pandas.DataFrame
        N, X, R, xr (= X R, the concurrency Little's law implies), residual (N - X R),
        rel_residual (residual / N), implied_latency (N / X), reason. Rows whose inputs
        cannot support a number get NaN and a reason (never 0).

    Raises
    ------
    StatsError
        When the arrays differ in length.
    """
    n = np.asarray(concurrency, dtype="float64").ravel()
    x = np.asarray(throughput, dtype="float64").ravel()
    r = np.asarray(latency, dtype="float64").ravel()
    if not (n.size == x.size == r.size):
        raise StatsError(f"littles_law: lengths differ (N {n.size}, X {x.size}, R {r.size})")
    with np.errstate(divide="ignore", invalid="ignore"):
        implied = np.where((x > 0) & np.isfinite(n) & (n > 0), n / x, np.nan)
        xr = x * r
        residual = n - xr
        rel = np.where(n > 0, residual / n, np.nan)
    reasons = []
    for ni, xi, ri in zip(n, x, r, strict=True):
        why = []
        if not (np.isfinite(ni) and ni > 0):
            why.append("concurrency missing or not positive")
        if not (np.isfinite(xi) and xi > 0):
            why.append("throughput missing or not positive")
        if not np.isfinite(ri):
            why.append("latency not measured: residual unknown, implied latency N/X given")
        reasons.append("; ".join(why) if why else pd.NA)
    return pd.DataFrame({"N": n, "X": x, "R": r, "xr": xr, "residual": residual,
                         "rel_residual": rel, "implied_latency": implied,
                         "reason": pd.array(reasons, dtype="string")})


def _metric_rows(df: pd.DataFrame, metric: str, role: str) -> pd.DataFrame:
    rows = df[(df["metric"] == metric).fillna(False)]
    if rows.empty:
        present = sorted(map(str, df["metric"].dropna().unique()))
        raise EmptyInputError(f"littles_table: no {role} rows (metric {metric!r}); metrics present: {present}")
    return rows


def littles_table(df: pd.DataFrame, *, concurrency: str = "p_threads",
                  throughput: str = "transaction_rate", latency: str = "latency_mean",
                  pair_on: Sequence[str] | None = None) -> pd.DataFrame:
    """Pair throughput and latency rows of a tidy frame and check N = X R for each point.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy measurements holding both metrics (sysbench: transaction_rate in tx/s and
        latency_mean in s, concurrency p_threads).
    concurrency : str
        Column holding N (a p_* parameter).
    throughput, latency : str
        Metric names of X (a "/s" unit) and R (unit "s"). Latency rows are optional per point:
        points without one get the implied latency N / X only.
    pair_on : sequence of str or None
        Columns identifying one measurement point. None: those of :data:`PAIR_COLUMNS` present,
        plus every p_* column that is set on both the throughput and the latency rows. Rows
        from different runs must differ in one of them (e.g. run_id).

    Returns
    -------
    pandas.DataFrame
        The pairing columns, then N, X, R, xr, residual, rel_residual, implied_latency,
        latency_used (R where measured, else N / X), latency_source ("measured" or
        "implied N/X"), reason.

    Raises
    ------
    MissingColumnError
        When a needed column is missing.
    EmptyInputError
        When the frame has no rows or the throughput metric is absent.
    UnitError
        When throughput is not per second or latency is not in s.
    PairingError
        When rows from different runs share the pairing columns (duplicates).
    """
    require_columns(df, ["metric", "value", "unit", concurrency], "littles_table")
    require_rows(df, "littles_table")
    thr = _metric_rows(df, throughput, "throughput")
    lat = df[(df["metric"] == latency).fillna(False)]
    bad = sorted({str(u) for u in thr["unit"].dropna().unique() if not str(u).endswith("/s")}
                 | ({"<NA>"} if thr["unit"].isna().any() else set()))
    if bad:
        raise UnitError(f"littles_table: throughput {throughput!r} must be a per-second rate, has unit(s) {bad}")
    bad = sorted({str(u) for u in lat["unit"].dropna().unique() if str(u) != "s"}
                 | ({"<NA>"} if lat["unit"].isna().any() else set()))
    if bad:
        raise UnitError(f"littles_table: latency {latency!r} must be in s, has unit(s) {bad}")
    if pair_on is None:
        keys = [c for c in PAIR_COLUMNS if c in df.columns]
        for c in param_columns(df):
            if thr[c].notna().any() and (lat.empty or lat[c].notna().any()):
                keys.append(c)
    else:
        keys = list(pair_on)
        require_columns(df, keys, "littles_table (pair_on)")
    if concurrency not in keys:
        keys.append(concurrency)
    for name, rows in (("throughput", thr), ("latency", lat)):
        dup = rows.duplicated(subset=keys, keep=False)
        if dup.any():
            first = rows[dup].iloc[0]
            src = first["source"] if "source" in rows.columns else "?"
            raise PairingError(
                f"littles_table: {int(dup.sum())} {name} rows share the pairing columns {keys} "
                f"(first at {src}); give each run a run_id (or trial) or pass pair_on")
    left = thr[keys].copy()
    left["X"] = thr["value"].to_numpy(dtype="float64", na_value=np.nan)
    right = lat[keys].copy()
    right["R"] = lat["value"].to_numpy(dtype="float64", na_value=np.nan)
    merged = left.merge(right, on=keys, how="left", validate="one_to_one")
    orphans = len(right) - int(merged["R"].notna().sum())
    n = pd.to_numeric(merged[concurrency].astype(object), errors="coerce").to_numpy(
        dtype="float64", na_value=np.nan)
    law = littles_law(n, merged["X"].to_numpy(), merged["R"].to_numpy(dtype="float64"))
    out = merged[keys].reset_index(drop=True)
    for c in ("N", "X", "R", "xr", "residual", "rel_residual", "implied_latency"):
        out[c] = law[c].to_numpy()
    measured = np.isfinite(out["R"].to_numpy())
    out["latency_used"] = np.where(measured, out["R"], out["implied_latency"])
    out["latency_source"] = pd.array(np.where(measured, "measured", "implied N/X"), dtype="string")
    out["reason"] = law["reason"]
    if orphans > 0:
        out.attrs["unpaired_latency_rows"] = orphans
    return out


def curve_keys(table: pd.DataFrame, by: str | Sequence[str] | None, what: str) -> list[str]:
    """Return the keys that identify one curve.

    Parameters
    ----------
    table : pandas.DataFrame
        The frame holding the curves.
    by : str, sequence of str or None
        Explicit curve keys (checked); None means the present ones of :data:`CURVE_COLUMNS`.
    what : str
        The caller's name, for the error message.

    Returns
    -------
    list of str
        The curve keys.

    Raises
    ------
    MissingColumnError
        When a key in ``by`` is not a column of ``table``; the message names ``what``.
    """
    if by is None:
        return [c for c in CURVE_COLUMNS if c in table.columns]
    keys = [by] if isinstance(by, str) else list(by)
    require_columns(table, keys, what)
    return keys


def _select(rows: pd.DataFrame, lo: float | None, hi: float | None) -> pd.DataFrame:
    mask = np.ones(len(rows), dtype=bool)
    n = rows["N"].to_numpy(dtype="float64")
    if lo is not None:
        mask &= n >= lo
    if hi is not None:
        mask &= n <= hi
    return rows[mask]


def _latency_column(latency: str) -> str:
    check_choice(latency, ("measured", "implied", "used"), "latency")
    return {"measured": "R", "implied": "implied_latency", "used": "latency_used"}[latency]


def latency_fit(table: pd.DataFrame, by: str | Sequence[str] | None = None, *,
                latency: str = "measured", min_concurrency: float | None = None,
                max_concurrency: float | None = None, level: float = 0.95,
                cov_type: str = "HC3") -> pd.DataFrame:
    """Fit R = a + b N per curve (ordinary least squares, robust standard errors).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`littles_table` (columns N and R / implied_latency / latency_used).
    by : str, sequence of str or None
        Curve keys; None: benchmark, environment, variant (those present).
    latency : str
        "measured" (R), "implied" (N / X: the R = N/X model) or "used" (measured, else implied).
    min_concurrency, max_concurrency : float or None
        Fit only points with N in this range (e.g. above saturation, where b = 1 / X_sat).
    level : float
        Confidence level of the coefficient intervals.
    cov_type : str
        statsmodels covariance type ("HC3", "HC1", "nonrobust", ...).

    Returns
    -------
    pandas.DataFrame
        Keys, n_points, n_levels, N_min, N_max, intercept (+ _low, _high), slope (+ _low,
        _high), x_saturation (1 / slope; meaningful above saturation), r2, reason. NaN with a
        reason for fewer than 3 points or 2 concurrency levels.
    """
    level = check_level(level)
    col = _latency_column(latency)
    require_columns(table, ["N", col], "latency_fit")
    require_rows(table, "latency_fit")
    keys = curve_keys(table, by, "latency_fit")
    records = []
    for key, rows in iter_groups(table, keys):
        rows = _select(rows, min_concurrency, max_concurrency)
        n = rows["N"].to_numpy(dtype="float64")
        r = rows[col].to_numpy(dtype="float64")
        ok = np.isfinite(n) & np.isfinite(r)
        n, r = n[ok], r[ok]
        rec = {**key, "n_points": int(n.size), "n_levels": int(np.unique(n).size),
               "N_min": float(n.min()) if n.size else math.nan,
               "N_max": float(n.max()) if n.size else math.nan}
        if n.size < 3 or np.unique(n).size < 2:
            rec["reason"] = "a line needs >= 3 points at >= 2 concurrency levels"
            records.append(rec)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = sm.OLS(r, sm.add_constant(n)).fit(cov_type=cov_type, use_t=True)
        ci = res.conf_int(alpha=1 - level)
        a, b = (float(v) for v in res.params)
        rec.update(intercept=a, intercept_low=float(ci[0, 0]), intercept_high=float(ci[0, 1]),
                   slope=b, slope_low=float(ci[1, 0]), slope_high=float(ci[1, 1]),
                   x_saturation=1.0 / b if b > 0 else math.nan, r2=float(res.rsquared))
        if b <= 0:
            rec["reason"] = "slope <= 0: no saturation throughput"
        records.append(rec)
    columns = [*keys, "n_points", "n_levels", "N_min", "N_max", "intercept", "intercept_low",
               "intercept_high", "slope", "slope_low", "slope_high", "x_saturation", "r2", "reason"]
    return finish(records, keys, table, columns)


def added_latency(table: pd.DataFrame, environment: str | None = None, baseline: str = "native",
                  *, model: str = "offset", at: float | None = None, latency: str = "measured",
                  min_concurrency: float | None = None, max_concurrency: float | None = None,
                  level: float = 0.95, cov_type: str = "HC3",
                  by: str | Sequence[str] | None = None,
                  environment_column: str = "environment") -> pd.DataFrame:
    """Estimate the latency added per request by an environment over the baseline, with a CI.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`littles_table`.
    environment : str or None
        The environment to compare; None compares every non-baseline environment.
    baseline : str
        Baseline environment.
    model : str
        "offset": R = a + b N + delta E over both environments' points (E = 1 for the
        environment); the estimate is delta. "linear": R = a + b N + delta E + gamma E N; the
        estimate is delta + gamma * at, and slope_difference = gamma.
    at : float or None
        Concurrency at which the "linear" model's difference is evaluated (default: the mean N
        of the points used). Ignored by "offset".
    latency : str
        "measured", "implied" (N / X) or "used".
    min_concurrency, max_concurrency : float or None
        Use only points with N in this range.
    level : float
        Confidence level.
    cov_type : str
        statsmodels covariance type (default HC3).
    by : str, sequence of str or None
        Curve keys including the environment column (default benchmark, environment, variant).
    environment_column : str
        Name of the environment column.

    Returns
    -------
    pandas.DataFrame
        Keys other than environment, environment, baseline, model, at, estimate, low, high
        (seconds per request), slope_difference (+ _low, _high; "linear" only), n_points,
        reason. NaN with a reason when either environment has fewer than 2 concurrency levels.

    Raises
    ------
    BaselineNotFoundError
        When ``baseline`` is absent from the table.
    StatsError
        When ``environment`` is absent from the table.
    """
    level = check_level(level)
    check_choice(model, ("offset", "linear"), "model")
    col = _latency_column(latency)
    require_columns(table, ["N", col, environment_column], "added_latency")
    require_rows(table, "added_latency")
    keys = curve_keys(table, by, "added_latency")
    if environment_column not in keys:
        keys = [*keys, environment_column]
    envs = table[environment_column]
    present = sorted(map(str, envs.dropna().unique()))
    if baseline not in present:
        raise BaselineNotFoundError(f"added_latency: baseline {baseline!r} not found; environments present: {present}")
    if environment is not None and environment not in present:
        raise StatsError(f"added_latency: environment {environment!r} not found; environments present: {present}")
    others = [k for k in keys if k != environment_column]
    records = []
    for key, rows in iter_groups(table, others):
        base = rows[(rows[environment_column] == baseline).fillna(False)]
        targets = [environment] if environment is not None else sorted(
            {str(e) for e in rows[environment_column].dropna().unique()} - {baseline})
        for env in targets:
            sub = rows[(rows[environment_column] == env).fillna(False)]
            rec = {**key, environment_column: env, "baseline": baseline, "model": model}
            pts = []
            for flag, part in ((0.0, base), (1.0, sub)):
                part = _select(part, min_concurrency, max_concurrency)
                n = part["N"].to_numpy(dtype="float64")
                r = part[col].to_numpy(dtype="float64")
                ok = np.isfinite(n) & np.isfinite(r)
                pts.append((n[ok], r[ok], np.full(int(ok.sum()), flag)))
            n = np.concatenate([p[0] for p in pts])
            r = np.concatenate([p[1] for p in pts])
            e = np.concatenate([p[2] for p in pts])
            rec["n_points"] = int(n.size)
            if any(np.unique(p[0]).size < 2 for p in pts):
                rec["reason"] = "each environment needs points at >= 2 concurrency levels"
                records.append(rec)
                continue
            x_ref = float(np.mean(n)) if at is None else float(at)
            if model == "offset":
                design = np.column_stack([np.ones_like(n), n, e])
                contrast = np.array([0.0, 0.0, 1.0])
            else:
                design = np.column_stack([np.ones_like(n), n, e, e * n])
                contrast = np.array([0.0, 0.0, 1.0, x_ref])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = sm.OLS(r, design).fit(cov_type=cov_type, use_t=True)
            tt = res.t_test(contrast)
            lo, hi = (float(v) for v in np.asarray(tt.conf_int(alpha=1 - level)).ravel())
            rec.update(at=x_ref if model == "linear" else math.nan,
                       estimate=float(np.asarray(tt.effect).ravel()[0]), low=lo, high=hi)
            if model == "linear":
                ci = res.conf_int(alpha=1 - level)
                rec.update(slope_difference=float(res.params[3]),
                           slope_difference_low=float(ci[3, 0]), slope_difference_high=float(ci[3, 1]))
            records.append(rec)
    columns = [*others, environment_column, "baseline", "model", "at", "estimate", "low", "high",
               "slope_difference", "slope_difference_low", "slope_difference_high", "n_points", "reason"]
    out = finish(records, others, table, columns)
    for c in (environment_column, "baseline", "model"):
        out[c] = out[c].astype("string")
    return out


def implied_latency(concurrency: object, throughput: object) -> np.ndarray:
    """Compute the latency implied by Little's law, N / X (seconds).

    Parameters
    ----------
    concurrency : array-like
        N.
    throughput : array-like
        X in completions per second.

    Returns
    -------
    numpy.ndarray
        N / X in seconds, NaN where X <= 0 or N is missing.
    """
    n = np.asarray(concurrency, dtype="float64")
    x = np.asarray(throughput, dtype="float64")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((x > 0) & np.isfinite(n) & (n > 0), n / x, np.nan)


__all__ = ["added_latency", "implied_latency", "latency_fit", "littles_law", "littles_table"]
