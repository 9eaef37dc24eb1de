"""The project's notebooks as files: the kernel they name, and stripping them for a commit.

Every notebook under ``notebooks/`` names the project's kernel (:data:`KERNEL_NAME`, the
``.venv`` interpreter registered by ``make setup``) and its language in its metadata, so that
JupyterLab opens it without asking which kernel to use and ``papermill IN OUT -p name value``
runs it without ``-k`` or ``--language``. Stripping (:func:`strip`) clears outputs and
execution counts and keeps exactly that metadata; committed notebooks are stripped (tests
check it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from overhead.errors import InputError

__all__ = ["CELL_METADATA", "KERNELSPEC", "KERNEL_NAME", "LANGUAGE_INFO", "strip", "strip_file"]

#: The kernel ``make setup`` registers (``ipykernel install --sys-prefix``): the .venv's python.
KERNEL_NAME = "overhead"
KERNELSPEC = {"display_name": "Python 3 (overhead)", "language": "python", "name": KERNEL_NAME}
#: What papermill and JupyterLab read to know the language (no version: it would drift).
LANGUAGE_INFO = {"codemirror_mode": {"name": "ipython", "version": 3},
                 "file_extension": ".py", "mimetype": "text/x-python", "name": "python",
                 "nbconvert_exporter": "python", "pygments_lexer": "ipython3"}
#: Cell metadata kept: tags (papermill's parameters cell) and jupytext's own round-trip spacing.
CELL_METADATA = ("tags", "lines_to_next_cell")


def strip(nb: dict) -> dict:
    """Return a notebook (nbformat JSON as a dict) without outputs, naming the project kernel.

    Code cells lose their outputs and execution counts; every cell keeps only its ``tags``
    metadata in :data:`CELL_METADATA` (papermill's ``parameters`` tag, jupytext's spacing); the notebook keeps only ``kernelspec`` (set to
    :data:`KERNELSPEC`), ``language_info`` (:data:`LANGUAGE_INFO`) and a ``jupytext`` entry if
    it had one.

    Parameters
    ----------
    nb : dict
        The notebook as loaded from its JSON.

    Returns
    -------
    dict
        A new notebook; the argument is left unchanged.
    """
    cells = []
    for cell in nb.get("cells", []):
        out = {k: v for k, v in cell.items() if k not in ("outputs", "execution_count", "metadata")}
        out["metadata"] = {k: v for k, v in cell.get("metadata", {}).items() if k in CELL_METADATA}
        if cell.get("cell_type") == "code":
            out["execution_count"] = None
            out["outputs"] = []
        cells.append(out)
    meta = {"kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO)}
    if "jupytext" in nb.get("metadata", {}):
        meta["jupytext"] = nb["metadata"]["jupytext"]
    return {**nb, "cells": cells, "metadata": meta}


def strip_file(path: str | os.PathLike[str]) -> bool:
    """Strip a notebook file in place (see :func:`strip`).

    Parameters
    ----------
    path : path
        An ``.ipynb`` file.

    Returns
    -------
    bool
        True when the file changed.

    Raises
    ------
    InputError
        When the file is missing or is not notebook JSON (naming the file and, for bad JSON,
        the line).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not notebook JSON: {exc.msg}") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise InputError(f"{path}: not a notebook (no list of cells)")
    new = json.dumps(strip(nb), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    """Strip the notebooks named on the command line (``python -m overhead.notebook F...``).

    Parameters
    ----------
    argv : list of str, optional
        The files (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0, or 2 after printing the first bad file's error on one line.
    """
    import sys

    try:
        for name in sys.argv[1:] if argv is None else argv:
            if strip_file(name):
                print(f"stripped {name}")
    except InputError as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
