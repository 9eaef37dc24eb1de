"""Shared pieces of :mod:`overhead.stats`: exceptions, group keys, samples, result records.

Policy (every public function follows it and says so in its docstring):

- Structural problems raise a specific exception whose message names what is missing or wrong:
  a missing column (:class:`MissingColumnError`), an empty frame (:class:`EmptyInputError`), an
  absent baseline environment (:class:`BaselineNotFoundError`), rows that cannot be paired
  (:class:`PairingError`), a wrong unit (:class:`UnitError`) or a bad argument such as a level
  outside (0, 1) (:class:`StatsError`).
- Data that cannot support a number (n too small, zero variance, NaN in the sample, a
  non-positive value for a harmonic mean, ...) gives NaN plus a ``reason``: a field of the
  result record for scalar functions, a ``reason`` column for frame functions. A missing value
  is never turned into 0, and NaN values are never silently dropped.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from overhead.errors import OverheadError
from overhead.schema import param_columns

#: Group keys used when ``by`` is not given (those present), followed by every p_* column.
DEFAULT_KEYS: tuple[str, ...] = ("benchmark", "environment", "variant", "metric", "unit")


class StatsError(OverheadError, ValueError):
    """A statistics function was called with arguments it cannot work with."""


class MissingColumnError(StatsError):
    """A column the function needs is not in the frame; the message names it."""


class EmptyInputError(StatsError):
    """The frame (or selection) has no rows."""


class BaselineNotFoundError(StatsError):
    """The baseline environment is not in the data; the message lists the ones present."""


class PairingError(StatsError):
    """Rows that should pair one-to-one (throughput with latency, ...) do not."""


class UnitError(StatsError):
    """A metric is not in the unit the computation needs."""


def require_columns(df: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    """Raise MissingColumnError unless every name in ``columns`` is a column of ``df``.

    Parameters
    ----------
    df : pandas.DataFrame
        The frame to check.
    columns : iterable of str
        Column names that must be present.
    what : str
        What needs them (a function name), used in the message.

    Raises
    ------
    MissingColumnError
        When a name in ``columns`` is not a column of ``df``; the message names it.
    """
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise MissingColumnError(
            f"{what} needs column(s) {missing}; the frame has {list(df.columns)}")


def require_rows(df: pd.DataFrame, what: str) -> None:
    """Raise EmptyInputError when ``df`` has no rows.

    Parameters
    ----------
    df : pandas.DataFrame
        The frame to check.
    what : str
        The caller's name, used in the message.

    Raises
    ------
    EmptyInputError
        When ``df`` has no rows.
    """
    if len(df) == 0:
        raise EmptyInputError(f"{what}: the frame has no rows")


def group_keys(df: pd.DataFrame, by: str | Sequence[str] | None = None, *,
               what: str = "grouping") -> list[str]:
    """Return the columns to group ``df`` by.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy measurements frame.
    by : str, sequence of str or None
        Explicit keys (all must exist, else MissingColumnError); None means the present ones of
        :data:`DEFAULT_KEYS` followed by every ``p_*`` parameter column.
    what : str
        The caller's name, for the error message.

    Returns
    -------
    list of str
        The grouping columns.

    Raises
    ------
    MissingColumnError
        When an explicit key in ``by`` is not a column of ``df``.
    """
    if by is None:
        return [k for k in DEFAULT_KEYS if k in df.columns] + param_columns(df)
    keys = [by] if isinstance(by, str) else list(by)
    require_columns(df, keys, what)
    return keys


def check_level(level: float, name: str = "level") -> float:
    """Return ``level`` as a float if it lies strictly between 0 and 1, else raise StatsError."""
    try:
        value = float(level)
    except (TypeError, ValueError):
        raise StatsError(f"{name} must be a number in (0, 1), got {level!r}") from None
    if not 0.0 < value < 1.0:
        raise StatsError(f"{name} must be in (0, 1), got {level!r}")
    return value


def check_choice(value: str, choices: Sequence[str], name: str) -> str:
    """Return ``value`` if it is one of ``choices``, else raise StatsError listing them."""
    if value not in choices:
        raise StatsError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def sample(x: object, name: str = "sample") -> tuple[np.ndarray, str | None]:
    """Turn ``x`` into a 1-D float array and say what, if anything, makes it unusable.

    Parameters
    ----------
    x : array-like
        Values (list, numpy array, pandas Series with NA).
    name : str
        How to call the sample in the reason.

    Returns
    -------
    values : numpy.ndarray
        The values (NA becomes NaN; nothing is dropped).
    reason : str or None
        A reason when the sample is empty or holds NaN/infinite values, else None.

    Raises
    ------
    StatsError
        If ``x`` is not 1-D.
    """
    if isinstance(x, pd.Series | pd.Index):
        arr = x.to_numpy(dtype="float64", na_value=np.nan)
    else:
        try:
            arr = np.asarray(x, dtype="float64")
        except (TypeError, ValueError):
            arr = pd.array(list(np.ravel(np.asarray(x, dtype=object)))).to_numpy(
                dtype="float64", na_value=np.nan)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise StatsError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return arr, f"{name} is empty"
    bad = int((~np.isfinite(arr)).sum())
    if bad:
        return arr, f"{name} has {bad} missing or non-finite value(s)"
    return arr, None


def join_reasons(*reasons: str | None) -> str | None:
    """Join the non-empty reasons with '; ' (None when there are none)."""
    parts = [r for r in reasons if r]
    return "; ".join(dict.fromkeys(parts)) if parts else None


def generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    """Return a numpy Generator from an int seed, an existing Generator, or None (fresh entropy)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, int | np.integer):
        return np.random.default_rng(rng)
    raise StatsError(f"rng must be a numpy Generator, an int seed or None, got {type(rng).__name__}")


_NA = object()


def norm_key(value: Hashable) -> Hashable:
    """Return a dictionary-safe version of one group-key value: every NA becomes one sentinel."""
    try:
        if pd.isna(value):
            return _NA
    except (TypeError, ValueError):
        pass
    if isinstance(value, np.generic):
        return value.item()
    return value


def iter_groups(df: pd.DataFrame, keys: Sequence[str]
                ) -> Iterator[tuple[dict[str, object], pd.DataFrame]]:
    """Yield ``(key_values, rows)`` for each group of ``df`` by ``keys``, NA keys kept.

    Parameters
    ----------
    df : pandas.DataFrame
        The frame.
    keys : sequence of str
        Grouping columns; an empty sequence yields the whole frame once with an empty dict.
    """
    if not keys:
        yield {}, df
        return
    for key, rows in df.groupby(list(keys), dropna=False, sort=True, observed=True):
        if not isinstance(key, tuple):
            key = (key,)
        yield dict(zip(keys, key, strict=True)), rows


def mixed_units(rows: pd.DataFrame) -> str | None:
    """Return a reason when ``rows`` mix units (a mean over them would mean nothing), else None."""
    if "unit" not in rows.columns:
        return None
    units = rows["unit"].dropna().unique()
    if len(units) > 1:
        return f"group mixes units {sorted(map(str, units))}"
    return None


def values_of(rows: pd.DataFrame, value: str = "value") -> np.ndarray:
    """Return the ``value`` column of ``rows`` as float64, NA as NaN."""
    return rows[value].to_numpy(dtype="float64", na_value=np.nan)


def finish(records: list[dict[str, object]], keys: Sequence[str], source: pd.DataFrame,
           columns: Sequence[str]) -> pd.DataFrame:
    """Build a result frame from per-group records.

    Key columns keep their source dtypes; ``reason`` (and other text columns listed as such by
    the caller) become ``string``.

    Parameters
    ----------
    records : list of dict
        One dict per output row.
    keys : sequence of str
        Key columns, copied with the dtype they have in ``source``.
    source : pandas.DataFrame
        The input frame.
    columns : sequence of str
        Every output column, in order.

    Returns
    -------
    pandas.DataFrame
        One row per record, with ``columns`` in order.
    """
    out = pd.DataFrame.from_records(records, columns=list(columns))
    for k in keys:
        if k in source.columns:
            try:
                out[k] = out[k].astype(source[k].dtype)
            except (TypeError, ValueError):
                pass
    if "reason" in out.columns:
        out["reason"] = out["reason"].astype("string")
    return out


@dataclass(frozen=True)
class Interval:
    """A confidence interval for one sample.

    Attributes
    ----------
    estimate : float
        The statistic.
    low, high : float
        The interval's endpoints.
    level : float
        The nominal confidence level.
    method : str
        "t", "bootstrap-BCa", "order-statistics", ...
    n : int
        The sample size.
    reason : str or None
        Why the numbers are NaN, or a caveat; None when all is well.
    achieved_level : float or None
        The exact coverage of order-statistic intervals.
    normality_p : float or None
        Shapiro-Wilk p-value when a normality check chose the method.
    """

    estimate: float
    low: float
    high: float
    level: float
    method: str
    n: int
    reason: str | None = None
    achieved_level: float | None = None
    normality_p: float | None = None

    @property
    def half_width(self) -> float:
        """Half the interval's width, (high - low) / 2 (NaN if the interval is NaN)."""
        return (self.high - self.low) / 2.0

    @property
    def rel_half_width_pct(self) -> float:
        """Half-width as a percentage of |estimate| (NaN when the estimate is 0 or NaN)."""
        if not math.isfinite(self.estimate) or self.estimate == 0:
            return math.nan
        return 100.0 * self.half_width / abs(self.estimate)

    def as_dict(self) -> dict[str, object]:
        """Return the fields plus half_width and rel_half_width_pct, for building frames."""
        d = asdict(self)
        d["half_width"] = self.half_width
        d["rel_half_width_pct"] = self.rel_half_width_pct
        return d


@dataclass(frozen=True)
class Estimate:
    """A single number with the reason it is NaN (or a caveat).

    ``float(e)`` gives the value.
    """

    value: float
    reason: str | None = None

    def __float__(self) -> float:
        return float(self.value)


def nan_interval(level: float, method: str, n: int, reason: str, **extra: object) -> Interval:
    """Return an Interval whose numbers are all NaN, carrying ``reason``."""
    return Interval(math.nan, math.nan, math.nan, level, method, n, reason, **extra)
