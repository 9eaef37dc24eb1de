"""Rebuild IBM RC25482 (Felter et al., 2014) from the authors' raw data: the study on top of the toolkit.

One module per section of the paper computes the data behind its tables and figures from the
tidy table; the notebooks under ``notebooks/`` call these and draw. Around them:

- :mod:`~overhead.rc25482.files`: which authors' file is what (the ingest rule set);
- :mod:`~overhead.rc25482.data`: where the authors' tree is, and how to get it;
- :mod:`~overhead.rc25482.spreadsheets`: the values that exist only in their spreadsheets;
- :mod:`~overhead.rc25482.authors`: their own derived files, read only to cross-check;
- :mod:`~overhead.rc25482.published`: the paper's published values (``data/reference/rc25482.csv``).

This package holds what the notebooks share: ingesting, loading a benchmark's rows with the
paper's labels, and the fixed output names that others rely on.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from overhead.errors import DataNotFound
from overhead.names import AUTHORS_DATASET, AUTHORS_STUDY
from overhead.paths import FIGURES, ROOT, TIDY
from overhead.rc25482.data import find_history, find_tree
from overhead.rc25482.files import ALIASES, CAMPAIGN, RULESET

if TYPE_CHECKING:  # pandas is imported where it is used: a warm `overhead ingest-ibm` needs none
    import pandas as pd

#: The notebooks in the order `make reproduce` runs them (the report last: it reads the others).
NOTEBOOKS = (
    "01_table1_compute_memory",
    "02_network",
    "03_block_io",
    "04_redis",
    "05_mysql",
    "06_report",
)
#: Where the authors' data is ingested by default.
TIDY_DIR = TIDY / AUTHORS_DATASET

__all__ = ["ALIASES", "CAMPAIGN", "NOTEBOOKS", "ROOT", "RULESET", "TIDY_DIR", "DataNotFound",
           "find_history", "find_tree", "ingest_ibm", "load", "out_dir", "prepare", "setup"]


def ingest_ibm(root: str | os.PathLike[str], out: str | os.PathLike[str], *, force: bool = False,
               workers: int | None = None):
    """Ingest the authors' tree with the study's rules (:func:`overhead.ingest.ingest`).

    Parameters
    ----------
    root : path
        The checkout of thewmf/kvm-docker-comparison.
    out : path
        The output folder.
    force, workers
        As for :func:`overhead.ingest.ingest`.

    Returns
    -------
    overhead.ingest.IngestResult
        What the ingest did.
    """
    from overhead.ingest import ingest

    return ingest(root, out, RULESET, force=force, workers=workers)


def prepare(ibm_data: str | os.PathLike[str] | None = None,
            tidy_dir: str | os.PathLike[str] | None = None) -> Path:
    """Ingest the authors' data into ``tidy_dir`` (cached: a no-op when nothing changed).

    Parameters
    ----------
    ibm_data : path, optional
        The authors' tree (found with :func:`~overhead.rc25482.data.find_tree` when None).
    tidy_dir : path, optional
        Output folder (default data/tidy/ibm in the repository).

    Returns
    -------
    Path
        ``tidy_dir``.
    """
    tidy_path = Path(tidy_dir) if tidy_dir else TIDY_DIR
    ingest_ibm(find_tree(ibm_data), tidy_path)
    return tidy_path


def load(tidy_dir: str | os.PathLike[str], benchmark: str | None = None, *,
         table: str = "measurements", metrics: list[str] | None = None,
         where: dict | None = None) -> pd.DataFrame:
    """Load rows as :func:`overhead.tidy.load` does, with the paper's environment labels.

    Parameters
    ----------
    tidy_dir, benchmark, table, metrics, where
        As for :func:`overhead.tidy.load`.

    Returns
    -------
    pandas.DataFrame
        The rows with a ``label`` column in the paper's words.
    """
    from overhead import tidy

    return tidy.load(tidy_dir, benchmark, table=table, metrics=metrics, where=where, aliases=ALIASES)


def out_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """Return the output folder for tables and figures (default figures/rc25482), created."""
    p = Path(path) if path else FIGURES / AUTHORS_STUDY
    p.mkdir(parents=True, exist_ok=True)
    return p


def setup(tidy_dir: str = "", ibm_data: str = "", out_dir_: str = "", published_values: str = "",
          compare_published: bool = True) -> tuple[str, Path, pd.DataFrame | None]:
    """Resolve a notebook's parameters (empty = the defaults); set the figure theme and tables' display.

    The one setup call of every section notebook: pandas shows tables 220 characters wide, up
    to 40 columns and 4 significant decimals.

    Parameters
    ----------
    tidy_dir, ibm_data, out_dir_, published_values, compare_published
        The five values of the notebooks' ``parameters`` cell: the ingest folder (ingested
        here when empty, cached), the authors' tree, the output folder, a CSV of published
        values (empty: ``data/reference/rc25482.csv``), and whether to compare with them.

    Returns
    -------
    tidy_dir : str
        The ingest folder.
    out : pathlib.Path
        The output folder.
    published : pandas.DataFrame or None
        The published values, or None when no comparison is wanted.
    """
    import pandas as pd

    from overhead import plots
    from overhead.rc25482.published import published

    tidy_path = tidy_dir or str(prepare(ibm_data or None))
    out = out_dir(out_dir_ or None)
    paper = published(published_values or AUTHORS_STUDY) if compare_published else None
    plots.theme()
    pd.set_option("display.width", 220, "display.max_columns", 40, "display.precision", 4,
                  "display.max_colwidth", 100)
    return tidy_path, out, paper
