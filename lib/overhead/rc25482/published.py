"""The published values of RC25482, as the study's notebooks compare with them.

:func:`published` is :func:`overhead.reference.published` for this study
(``data/reference/rc25482.csv``, written from the paper's text, the authors' spreadsheets and,
for a few recomputed cross-checks, their raw logs); :func:`table1_published` gives Table I
(mean, SD and n per workload and environment) from its rows.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from overhead import reference

STUDY = "rc25482"

__all__ = ["STUDY", "published", "table1_published"]


def published(source: str | os.PathLike[str] = STUDY) -> pd.DataFrame:
    """Read the study's published values (see :func:`overhead.reference.published`).

    Parameters
    ----------
    source : str or path
        The study name (default) or another CSV file with the same columns.

    Returns
    -------
    pandas.DataFrame
        As :func:`overhead.reference.published`.
    """
    return reference.published(source)


# The Table I cells the reference README prints as "see note": the spreadsheet has a value,
# the printed table's value could not be confirmed.
_TABLE1_OPEN = {("Linpack", "KVM-untuned")}


def _table1_workload(metric: str) -> str | None:
    """Return Table I's workload for a published metric ("Stream Copy (...)" -> "STREAM Copy")."""
    if metric == "Linpack":
        return "Linpack"
    if metric.startswith("RandomAccess (two-socket"):
        return "RandomAccess"
    m = re.match(r"^Stream (Copy|Scale|Add|Triad) \(two-socket", metric)
    return f"STREAM {m.group(1)}" if m else None


def table1_published(source: pd.DataFrame | str | os.PathLike[str] = STUDY, *,
                     include_open: bool = False) -> pd.DataFrame:
    """Build Table I as the reference README prints it, from the published values' rows.

    Parameters
    ----------
    source : pandas.DataFrame, str or path
        The published values (a :func:`published` frame, or what it takes).
    include_open : bool
        Also return the untuned-KVM Linpack value of the authors' spreadsheet, which the
        README leaves open.

    Returns
    -------
    pandas.DataFrame
        Columns workload (Linpack, RandomAccess, STREAM Add/Copy/Scale/Triad), environment
        (Native, Docker, KVM-untuned, KVM-tuned), mean, sd, sd_kind, n, unit (GFLOPS, GUPS, GB/s
        as printed), status, source. STREAM and RandomAccess "KVM" rows are the untuned VM (the
        README: those runs come from an untuned VM). PXZ has no absolute value and no row.
    """
    pub = source if isinstance(source, pd.DataFrame) else published(source)
    rows = []
    for r in pub[pub["item"] == "Table I"].itertuples(index=False):
        workload = _table1_workload(str(r.metric))
        if workload is None or np.isnan(r.value):
            continue
        env = "KVM-untuned" if r.env == "KVM" else str(r.env)
        if (workload, env) in _TABLE1_OPEN and not include_open:
            continue
        rows.append({"workload": workload, "environment": env, "mean": r.value, "sd": r.err,
                     "sd_kind": r.err_kind, "n": r.n, "unit": r.unit, "status": r.status,
                     "source": r.source})
    out = pd.DataFrame(rows)
    out["n"] = out["n"].astype("Int64")
    for col in ("workload", "environment", "sd_kind", "unit", "status", "source"):
        out[col] = out[col].astype("string")
    return out


