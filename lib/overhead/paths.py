"""Where the project and the shared reference data are (no heavy imports here).

The authors' raw data and the published numbers are read in place, never copied into the
repository. They are looked for, in order: $OVERHEAD_REFERENCE, ``../shared/reference`` next to
the checkout, and ``/work/shared/reference`` (the development machine's shared folder, for a
clone made somewhere else on it).
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def reference_candidates() -> list[Path]:
    """Folders that may hold paper_numbers.csv and kvm-docker-comparison/, in search order."""
    found = []
    if os.environ.get("OVERHEAD_REFERENCE"):
        found.append(Path(os.environ["OVERHEAD_REFERENCE"]))
    found += [ROOT.parent / "shared" / "reference", Path("/work/shared/reference")]
    return found


def find_reference() -> Path | None:
    """The first candidate that holds the authors' tree or paper_numbers.csv, or None."""
    for c in reference_candidates():
        if (c / "kvm-docker-comparison").is_dir() or (c / "paper_numbers.csv").is_file():
            return c.resolve()
    return None
