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

from overhead.rc25482 import NOTEBOOKS, ROOT, find_ibm_data, find_reference_dir, out_dir, prepare


@dataclass
class NotebookRun:
    """One executed notebook: name, output copy, seconds taken, error text if it failed."""

    name: str
    executed: Path
    seconds: float
    error: str | None = None


def run_notebook(name: str, parameters: dict, executed_dir: Path) -> NotebookRun:
    """Execute ``notebooks/<name>.ipynb`` with papermill; failures are returned, not raised."""
    import papermill as pm

    src = ROOT / "notebooks" / f"{name}.ipynb"
    dst = executed_dir / f"{name}.ipynb"
    started = time.perf_counter()
    try:
        pm.execute_notebook(str(src), str(dst), parameters=parameters, cwd=str(ROOT),
                            kernel_name="python3", language="python", progress_bar=False, log_output=False,
                            # the kernel's own start/stop chatter is not the notebook's output
                            extra_arguments=["--IPKernelApp.log_level=CRITICAL"])
    except Exception as exc:  # papermill wraps the cell's error; keep its message
        return NotebookRun(name, dst, time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
    return NotebookRun(name, dst, time.perf_counter() - started)


def reproduce(out: str | os.PathLike[str] | None = None, tidy: str | os.PathLike[str] | None = None,
              ibm_data: str | os.PathLike[str] | None = None,
              reference: str | os.PathLike[str] | None = None,
              executed: str | os.PathLike[str] | None = None, workers: int = 2,
              only: list[str] | None = None) -> list[NotebookRun]:
    """Ingest (cached) and run the notebooks; returns one NotebookRun per notebook.

    Parameters: out, figures folder (default figures/rc25482); tidy, ingest folder (default
    data/tidy/ibm); ibm_data, the authors' tree (searched when None); reference, folder with
    paper_numbers.csv (searched; None disables published comparisons); executed, where executed
    copies go (default notebooks/executed); workers, notebooks run at once; only, a subset.
    """
    ibm_root = find_ibm_data(ibm_data)
    tidy_dir = prepare(ibm_root, tidy)
    ref = find_reference_dir(reference)
    params = {"tidy_dir": str(Path(tidy_dir).resolve()), "ibm_data": str(ibm_root),
              "out_dir": str(out_dir(out).resolve()),
              "reference_dir": str(ref) if ref else "", "compare_published": ref is not None}
    executed_dir = Path(executed) if executed else ROOT / "notebooks" / "executed"
    executed_dir.mkdir(parents=True, exist_ok=True)
    names = [n for n in NOTEBOOKS if only is None or n in only]
    sections = [n for n in names if n != "06_report"]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        runs = list(pool.map(lambda n: run_notebook(n, params, executed_dir), sections))
    if "06_report" in names:
        runs.append(run_notebook("06_report", params, executed_dir))
    return runs
