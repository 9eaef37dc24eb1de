"""Where the RC25482 authors' raw data is, and how to get it.

The authors' repository ``thewmf/kvm-docker-comparison`` (pinned to commit 6820500b) is read in
place, never copied into this repository. It is looked for, in order, at:

1. an explicit path (a notebook's ``ibm_data`` parameter, ``--ibm`` on the command line);
2. ``$OVERHEAD_REFERENCE``: a folder holding ``kvm-docker-comparison/`` (or the tree itself);
3. ``../shared/reference/kvm-docker-comparison`` beside the checkout (this project's CI);
4. ``data/external/kvm-docker-comparison``, where ``make demo`` clones it
   (``scripts/get-ibm-data.sh``: pinned commit, files verified against
   ``data/reference/kvm-docker-comparison.sha256``).

Files the authors later deleted or overwrote (the plot CSVs behind Figs 10/12/13) are in a
``kvm-docker-comparison-history/`` folder beside the tree, named ``<name>@<commit>``.
"""

from __future__ import annotations

import os
from pathlib import Path

from overhead.errors import DataNotFound
from overhead.paths import EXTERNAL, ROOT

TREE = "kvm-docker-comparison"
HISTORY = "kvm-docker-comparison-history"
URL = "https://github.com/thewmf/kvm-docker-comparison"
COMMIT = "6820500beab45d7c8d005caefb40eda7381eb05f"
#: The command that gets the data (what ``make demo`` runs when it is nowhere else).
FETCH_HINT = "sh scripts/get-ibm-data.sh   (clones the authors' repository at 6820500b into data/external/)"

__all__ = ["COMMIT", "FETCH_HINT", "HISTORY", "TREE", "URL", "candidates", "find_history", "find_tree"]


def candidates(explicit: str | os.PathLike[str] | None = None) -> list[Path]:
    """List the places the authors' tree is looked for, in order (see the module docstring)."""
    found: list[Path] = []
    if explicit:
        found.append(Path(explicit))
    env = os.environ.get("OVERHEAD_REFERENCE")
    if env:
        found += [Path(env) / TREE, Path(env)]
    found += [ROOT.parent / "shared" / "reference" / TREE, EXTERNAL / TREE]
    return found


def _is_tree(path: Path) -> bool:
    """Tell whether ``path`` looks like the authors' tree (its result folders are there)."""
    return (path / "mysql" / "results").is_dir() and (path / "redis" / "results").is_dir()


def find_tree(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Find the authors' tree: the first of :func:`candidates` that holds it.

    Parameters
    ----------
    explicit : path, optional
        Used when given (it may be a partial copy of the tree); when it is not a folder, that
        is an error, not silently passed over.

    Returns
    -------
    Path
        The resolved tree.

    Raises
    ------
    DataNotFound
        When none exists; the message says how to get it.
    """
    if explicit:
        if not Path(explicit).is_dir():
            raise DataNotFound(f"{explicit}: not a folder; the authors' data ({TREE}) can be fetched with: "
                               f"{FETCH_HINT}")
        return Path(explicit).resolve()
    looked = candidates()
    for c in looked:
        if _is_tree(c):
            return c.resolve()
    raise DataNotFound(f"the authors' raw data was not found (looked at {', '.join(map(str, looked))}); "
                       f"get it with: {FETCH_HINT}")


def find_history(tree: str | os.PathLike[str] | None = None) -> Path | None:
    """Find the history folder beside ``tree`` (default: :func:`find_tree`'s tree), or None."""
    try:
        base = Path(tree) if tree else find_tree()
    except DataNotFound:
        return None
    path = base.parent / HISTORY
    return path.resolve() if path.is_dir() else None
