"""Every campaign at once: DuckDB views over the Parquet parts of all tidy folders.

A tidy root (``data/tidy``) holds one folder per campaign (``data/tidy/<name>``, written by
:func:`overhead.campaign.ingest.ingest_campaign`) and the authors' tables (``data/tidy/ibm``).
:class:`Store` opens an in-memory DuckDB database whose views read them in place:

- ``measurements``: every measured value of every campaign (``campaign`` names it), the
  columns of all parts unified by name (a part without ``p_clients`` reads NULL there, as
  :func:`overhead.tidy.read` does for one folder), filters and column choices pushed down to
  the Parquet reader;
- ``trials``: one row per trial (campaigns only);
- ``provenance``: one row per run;
- ``usable``: the measurements of done, non-warm-up trials joined with their trial's
  environment name (``env_name``) and cell: what every comparison is computed from, as
  :func:`overhead.campaign.results.open_results` selects them for one campaign.

Nothing is copied: a query reads the files (DuckDB caches their metadata while the store is
open). :meth:`Store.values` is the query every comparison across campaigns asks: one metric of
one benchmark, per trial, for chosen campaigns and environments.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from overhead.errors import DataNotFound, InputError
from overhead.paths import TIDY

__all__ = ["Store", "open_store"]

#: Tables a campaign folder holds as files or folders of parts.
_TABLES = ("measurements", "provenance", "trials")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def _files(folder: Path, table: str) -> list[str]:
    """Return the Parquet files of ``table`` in a tidy folder (a file, or a folder's parts)."""
    from overhead.schema import parts_of

    path = folder / f"{table}.parquet"
    if path.is_file():
        return [str(path)]
    if path.is_dir():
        return [str(p) for p in parts_of(path)]  # the zero-row schema part left out
    return []


def _quote_list(paths: Sequence[str]) -> str:
    """Return a DuckDB list literal of file paths."""
    return "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"


@dataclass(frozen=True)
class Campaign:
    """One tidy folder in the store: its name, folder and whether it is a measured campaign."""

    name: str
    folder: Path
    measured: bool


class Store:
    """DuckDB views over every campaign of a tidy root (see the module's text).

    Parameters
    ----------
    root : path, optional
        The tidy root (default ``data/tidy``); every sub-folder with a ``measurements.parquet``
        is read, the authors' ``ibm`` too unless ``campaigns`` leaves it out.
    campaigns : iterable of str, optional
        Only these folders (by name); an unknown name is an error naming the ones present.
    threads : int, optional
        DuckDB's worker threads (default: its own, the machine's cores).

    Raises
    ------
    DataNotFound
        When the root has no tidy folder (or a named campaign is not in it).
    """

    def __init__(self, root: str | os.PathLike[str] | None = None,
                 campaigns: Iterable[str] | None = None, *, threads: int | None = None):
        import duckdb

        self.root = Path(root or TIDY)
        found = self._discover()
        if campaigns is not None:
            wanted = list(dict.fromkeys(campaigns))
            missing = [c for c in wanted if c not in found]
            if missing:
                raise DataNotFound(f"{self.root}: no ingested campaign {', '.join(map(repr, missing))} "
                                   f"(present: {', '.join(found) or 'none'})")
            found = {c: found[c] for c in wanted}
        if not found:
            raise DataNotFound(f"{self.root}: no tidy folder with a measurements table (ingest "
                               "a campaign, or the authors' data, first)")
        self.campaigns = found
        self.con = duckdb.connect(":memory:")
        if threads:
            self.con.execute(f"SET threads = {int(threads)}")
        self._views()

    def _discover(self) -> dict[str, Campaign]:
        if not self.root.is_dir():
            return {}
        out = {}
        for p in sorted(self.root.iterdir()):
            if p.is_dir() and _NAME.fullmatch(p.name) and _files(p, "measurements"):
                out[p.name] = Campaign(p.name, p, (p / "trials.parquet").exists())
        return out

    def _views(self) -> None:
        for table in _TABLES:
            files = [f for c in self.campaigns.values() for f in _files(c.folder, table)]
            if not files:
                self.con.execute(f"CREATE VIEW {table} AS SELECT NULL::VARCHAR AS campaign LIMIT 0")
                continue
            self.con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet("
                             f"{_quote_list(files)}, union_by_name = true)")
        if any(c.measured for c in self.campaigns.values()):
            cols = self.columns("trials")
            extra = ", ".join(f"t.{c}" for c in ("cell", "round", "position") if c in cols)
            self.con.execute(
                "CREATE VIEW usable AS SELECT m.*, t.env_name"
                + (f", {extra}" if extra else "")
                + " FROM measurements m JOIN trials t ON m.campaign = t.campaign AND m.run_id = t.run_id"
                " WHERE t.status = 'done' AND NOT coalesce(t.warmup, false)"
                " AND NOT coalesce(m.warmup, false)")
        else:
            self.con.execute("CREATE VIEW usable AS SELECT *, NULL::VARCHAR AS env_name "
                             "FROM measurements LIMIT 0")

    def columns(self, view: str = "measurements") -> list[str]:
        """Return the column names of a view."""
        return [r[0] for r in self.con.execute(f"DESCRIBE {view}").fetchall()]

    def query(self, sql: str, params: Sequence[object] | None = None) -> pd.DataFrame:
        """Run SQL over the views and return the result as a pandas frame (nullable dtypes)."""
        return self.con.execute(sql, params or []).df().convert_dtypes(dtype_backend="numpy_nullable")

    def names(self, *, measured: bool | None = None) -> list[str]:
        """List the store's tidy folders (``measured=True``: campaigns only, not the authors')."""
        return [c.name for c in self.campaigns.values()
                if measured is None or c.measured == measured]

    def values(self, benchmark: str, metric: str, *, campaigns: Sequence[str] | None = None,
               environments: Sequence[str] | None = None) -> pd.DataFrame:
        """Return one metric of one benchmark per trial, from the campaigns' usable rows.

        The values of a trial with several rows of the same parameters (a tool reporting one
        value per second, say) are averaged into one per trial; rows are kept apart by every
        ``p_*`` column that is set for this benchmark and metric.

        Parameters
        ----------
        benchmark, metric : str
            What to read (``netperf``, ``latency_mean``).
        campaigns : sequence of str, optional
            Only these campaigns (default: every measured campaign of the store).
        environments : sequence of str, optional
            Only these environment names (as the campaign files call them: ``docker-nat``).

        Returns
        -------
        pandas.DataFrame
            campaign, env_name, environment, variant, run_id, trial, started_at, unit,
            higher_is_better, the set ``p_*`` columns, value, n_rows (rows averaged). Empty
            when nothing matches.
        """
        if not any(c.measured for c in self.campaigns.values()):
            raise InputError(f"{self.root}: no measured campaign (only {', '.join(self.names())})")
        where = ["benchmark = ?", "metric = ?"]
        params: list[object] = [benchmark, metric]
        if campaigns is not None:
            where.append("campaign IN (SELECT unnest(?))")
            params.append(list(campaigns))
        if environments is not None:
            where.append("env_name IN (SELECT unnest(?))")
            params.append(list(environments))
        cond = " AND ".join(where)
        pcols = [c for c in self.columns("usable") if c.startswith("p_")]
        if pcols:
            counts = self.con.execute(
                "SELECT " + ", ".join(f"count({c})" for c in pcols) + f" FROM usable WHERE {cond}",
                params).fetchone()
            pcols = [c for c, n in zip(pcols, counts, strict=True) if n]
        keys = ["campaign", "env_name", "environment", "variant", "run_id", "trial", "unit", *pcols]
        sql = (f"SELECT {', '.join(keys)}, min(started_at) AS started_at, "
               f"bool_or(higher_is_better) AS higher_is_better, avg(value) AS value, "
               f"count(value) AS n_rows FROM usable WHERE {cond} AND value IS NOT NULL "
               f"GROUP BY ALL ORDER BY campaign, env_name, started_at")
        return self.query(sql, params)

    def close(self) -> None:
        """Close the DuckDB connection."""
        self.con.close()

    def __enter__(self) -> Store:
        """Use the store in a ``with`` block (closed at its end)."""
        return self

    def __exit__(self, *exc) -> None:
        """Close the connection."""
        self.close()


def open_store(root: str | os.PathLike[str] | None = None,
               campaigns: Iterable[str] | None = None) -> Store:
    """Open a :class:`Store` over a tidy root (default ``data/tidy``); see :class:`Store`."""
    return Store(root, campaigns)
