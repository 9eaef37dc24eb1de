"""Where the project's own folders are (no heavy imports here).

Everything the product reads by default is inside the checkout: ``data/reference/`` holds the
published values written down from each study's sources, ``data/tidy/`` the ingested tables,
``data/raw/`` campaign outputs, ``data/external/`` data fetched from elsewhere (the RC25482
authors' repository, see :mod:`overhead.rc25482.data`), ``figures/`` what notebooks write.
"""

from __future__ import annotations

from pathlib import Path

#: The checkout (the folder holding lib/, data/, notebooks/).
ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
#: Published values, one CSV per study (committed).
REFERENCE_DATA = DATA / "reference"
#: Ingested tidy tables (ignored by git).
TIDY = DATA / "tidy"
#: Data fetched from outside the project (ignored by git).
EXTERNAL = DATA / "external"
FIGURES = ROOT / "figures"
