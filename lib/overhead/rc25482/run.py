"""`make reproduce`: run every RC25482 notebook with papermill, the report last.

The executed copies go to ``notebooks/executed/`` (ignored by git); tables and figures go to the
output folder with fixed names. The section notebooks are independent and run two at a time
(this machine has two cores); the report assembles their outputs afterwards.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from overhead.rc25482 import NOTEBOOKS, ROOT, find_tree, out_dir, prepare


@dataclass
class NotebookRun:
    """One executed notebook.

    Attributes
    ----------
    name : str
        The notebook's name.
    executed : pathlib.Path
        The executed output copy.
    seconds : float
        Seconds taken.
    error : str or None
        The error text if it failed.
    """

    name: str
    executed: Path
    seconds: float
    error: str | None = None


def run_notebook(name: str, parameters: dict, executed_dir: Path) -> NotebookRun:
    """Execute ``notebooks/<name>.ipynb`` with papermill.

    Parameters
    ----------
    name : str
        The notebook's name, without ``.ipynb``.
    parameters : dict
        The values for the notebook's ``parameters`` cell.
    executed_dir : pathlib.Path
        Where the executed copy goes.

    Returns
    -------
    NotebookRun
        The run; a failure is returned (its text in ``error``), not raised.
    """
    import papermill as pm

    src = ROOT / "notebooks" / f"{name}.ipynb"
    dst = executed_dir / f"{name}.ipynb"
    started = time.perf_counter()
    try:
        # the kernel is the one the notebook names (the project's, registered by make setup)
        pm.execute_notebook(str(src), str(dst), parameters=parameters, cwd=str(ROOT),
                            progress_bar=False, log_output=False,
                            # the kernel's own start/stop chatter is not the notebook's output
                            extra_arguments=["--IPKernelApp.log_level=CRITICAL"])
    except Exception as exc:  # papermill wraps the cell's error; keep its message
        return NotebookRun(name, dst, time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
    return NotebookRun(name, dst, time.perf_counter() - started)


def reproduce(out: str | os.PathLike[str] | None = None, tidy: str | os.PathLike[str] | None = None,
              ibm_data: str | os.PathLike[str] | None = None,
              published_values: str | os.PathLike[str] | None = None,
              executed: str | os.PathLike[str] | None = None, workers: int = 2,
              only: list[str] | None = None, compare_published: bool = True,
              campaign: str | None = None,
              campaign_tidy: str | os.PathLike[str] | None = None) -> list[NotebookRun]:
    """Ingest (cached) and run the notebooks.

    Parameters
    ----------
    out : path, optional
        Figures folder (default figures/rc25482).
    tidy : path, optional
        Ingest folder (default data/tidy/ibm).
    ibm_data : path, optional
        The authors' tree (searched when None, see :mod:`overhead.rc25482.data`).
    published_values : path, optional
        A CSV of published values (default ``data/reference/rc25482.csv``).
    executed : path, optional
        Where executed copies go (default notebooks/executed).
    workers : int
        Notebooks run at once.
    only : list of str, optional
        A subset of :data:`NOTEBOOKS`.
    compare_published : bool
        Compare with the published values (False leaves those columns empty).
    campaign : str, optional
        A campaign's name or YAML file: the notebooks also rebuild its live tables and figures
        into ``<out>/../<campaign>/`` and the report notebook writes its live report there;
        executed copies then go to ``<executed>/<campaign>/``.
    campaign_tidy : path, optional
        The folder of campaign tidy trees (default data/tidy).

    Returns
    -------
    list of NotebookRun
        One per notebook, in :data:`NOTEBOOKS` order.

    Raises
    ------
    InputError
        When ``campaign`` is given and has not been ingested (before any notebook runs).
    """
    if campaign:
        # refused before any notebook starts (each would fail on it, saying less)
        from overhead.campaign.results import ingested

        ingested(campaign, campaign_tidy)
    ibm_root = find_tree(ibm_data)
    tidy_dir = prepare(ibm_root, tidy)
    params = {"tidy_dir": str(Path(tidy_dir).resolve()), "ibm_data": str(ibm_root),
              "out_dir": str(out_dir(out).resolve()),
              "published_values": str(Path(published_values).resolve()) if published_values else "",
              "compare_published": compare_published, "campaign": str(campaign or ""),
              "campaign_tidy": str(Path(campaign_tidy).resolve()) if campaign_tidy else ""}
    executed_dir = Path(executed) if executed else ROOT / "notebooks" / "executed"
    if campaign:
        executed_dir = executed_dir / Path(str(campaign)).stem
    executed_dir.mkdir(parents=True, exist_ok=True)
    names = [n for n in NOTEBOOKS if only is None or n in only]
    sections = [n for n in names if n != "06_report"]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        runs = list(pool.map(lambda n: run_notebook(n, params, executed_dir), sections))
    if "06_report" in names:
        runs.append(run_notebook("06_report", params, executed_dir))
    return runs
