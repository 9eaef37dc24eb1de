"""Names the whole project shares, defined once.

``BASELINE``
    The environment every overhead is relative to (the paper's "native").
``AUTHORS_DATASET``
    The authors' raw results ingested: their tidy folder is ``data/tidy/<AUTHORS_DATASET>``.
``AUTHORS_STUDY``
    The study built from them: ``figures/<AUTHORS_STUDY>/`` and its published values
    ``data/reference/<AUTHORS_STUDY>.csv``.
"""

from __future__ import annotations

#: The baseline environment's label.
BASELINE = "Native"
#: The tidy folder (under data/tidy) of the authors' ingested raw data.
AUTHORS_DATASET = "ibm"
#: The study (folder under figures/, published values under data/reference/) of the paper.
AUTHORS_STUDY = "rc25482"

__all__ = ["AUTHORS_DATASET", "AUTHORS_STUDY", "BASELINE"]
