"""Studies register themselves: ``figures/<name>/study.json`` says what a study folder is.

Whatever writes a study's report (the paper rebuilt from the authors' data, a campaign's live
report, a seed study) registers it beside the report: its name, kind, title, tidy folder,
campaign, published values and report page. ``overhead publish``, the reports index and the
explore notebook read the registrations instead of guessing from folder names; a folder
without one (written before registrations existed) is still found the old way by
:mod:`overhead.publish`.

Paths inside the checkout are stored relative to it (a registration survives a move of the
checkout), others as absolute paths.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from overhead.errors import InputError
from overhead.paths import ROOT

#: The registration's file name in a study folder.
FILE = "study.json"
#: The kinds of study: the paper from the authors' raw data, a seed study (published values in
#: ``data/reference/<name>.csv``), a campaign measured here.
KINDS = ("rc25482", "seed", "campaign", "comparison")


@dataclass(frozen=True)
class Registration:
    """What a study folder is.

    Attributes
    ----------
    name : str
        The study's name (its folder's name under ``figures/``).
    kind : str
        One of :data:`KINDS`.
    title : str
        The report's title.
    folder : pathlib.Path
        The study folder.
    tidy : pathlib.Path or None
        The tidy folder its tables were computed from.
    campaign : str or None
        The campaign measured (None for the authors' data).
    reference : pathlib.Path or None
        The published values compared with, when any.
    report : str
        The report page, relative to the folder.
    inputs : list of pathlib.Path
        Other inputs read (the authors' tidy folder a live report compares with, say).
    """

    name: str
    kind: str
    title: str
    folder: Path
    tidy: Path | None = None
    campaign: str | None = None
    reference: Path | None = None
    report: str = "report.html"
    inputs: list[Path] = field(default_factory=list)


def _stored(path: str | os.PathLike[str] | None) -> str | None:
    """Return a path as a registration stores it (relative to the checkout when inside it)."""
    if path is None:
        return None
    p = Path(path).resolve()
    return p.relative_to(ROOT).as_posix() if p.is_relative_to(ROOT) else str(p)


def _loaded(text: str | None) -> Path | None:
    """Return a stored path as a path (relative ones are inside the checkout)."""
    if text is None:
        return None
    p = Path(text)
    return p if p.is_absolute() else ROOT / p


def register(folder: str | os.PathLike[str], *, kind: str, title: str,
             tidy: str | os.PathLike[str] | None = None, campaign: str | None = None,
             reference: str | os.PathLike[str] | None = None, report: str = "report.html",
             inputs: list[str | os.PathLike[str]] | tuple = ()) -> Path:
    """Write ``<folder>/study.json``; return its path.

    Raises
    ------
    InputError
        When ``kind`` is not one of :data:`KINDS`.
    """
    if kind not in KINDS:
        raise InputError(f"{folder}: study kind {kind!r} is not one of {', '.join(KINDS)}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    doc = {"name": folder.name, "kind": kind, "title": title, "tidy": _stored(tidy),
           "campaign": campaign, "reference": _stored(reference), "report": report,
           "inputs": [_stored(p) for p in inputs]}
    path = folder / FILE
    tmp = path.with_name(f".{FILE}.tmp")
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
    return path


def read(folder: str | os.PathLike[str]) -> Registration | None:
    """Return a folder's registration, or None when it has none.

    Raises
    ------
    InputError
        When ``study.json`` is there but not a registration (the message names the file and
        the field).
    """
    folder = Path(folder)
    path = folder / FILE
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: not readable as JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise InputError(f"{path}: not a study registration (a JSON object is expected)")
    for key in ("kind", "title"):
        if not isinstance(doc.get(key), str) or not doc[key]:
            raise InputError(f"{path}: field {key!r} is missing or not text")
    if doc["kind"] not in KINDS:
        raise InputError(f"{path}: field 'kind' is {doc['kind']!r}, not one of {', '.join(KINDS)}")
    inputs = doc.get("inputs") or []
    if not isinstance(inputs, list):
        raise InputError(f"{path}: field 'inputs' is not a list")
    return Registration(name=folder.name, kind=doc["kind"], title=doc["title"], folder=folder,
                        tidy=_loaded(doc.get("tidy")), campaign=doc.get("campaign"),
                        reference=_loaded(doc.get("reference")),
                        report=doc.get("report") or "report.html",
                        inputs=[p for p in map(_loaded, inputs) if p is not None])


def registered(figures: str | os.PathLike[str]) -> list[Registration]:
    """Return every registered study under ``figures`` (one folder deep), by name."""
    figures = Path(figures)
    if not figures.is_dir():
        return []
    found = [read(p) for p in sorted(figures.iterdir()) if p.is_dir() and (p / FILE).is_file()]
    return [r for r in found if r is not None]


def as_dict(reg: Registration) -> dict:
    """Return a registration as plain data (paths as text)."""
    return {k: (str(v) if isinstance(v, Path) else [str(x) for x in v] if k == "inputs" else v)
            for k, v in asdict(reg).items()}


__all__ = ["FILE", "KINDS", "Registration", "as_dict", "read", "register", "registered"]
