"""Equivalence margins: data, not code (``data/reference/margins.yml``).

A verdict calls an environment ``equivalent`` to its baseline only when the ratio's interval
lies inside a margin (:mod:`overhead.stats.verdicts`). Which margin applies to which quantity,
and why, is written in ``data/reference/margins.yml``: a default and rules, each rule a margin
with a one-line reason and the comparisons it applies to. :func:`load` reads the file;
:meth:`Margins.lookup` finds the margin of a comparison from what the caller knows of it (its
item, benchmark, tool, metric, study), and a :class:`Margins` is itself the callable that
:func:`overhead.stats.verdicts` and :func:`overhead.stats.curve` take for ``margin``.
"""

from __future__ import annotations

import fnmatch
import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from overhead.errors import DataNotFound, SchemaError
from overhead.paths import REFERENCE_DATA
from overhead.stats.verdicts import Margin

__all__ = ["FIELDS", "MARGINS_FILE", "Margins", "Rule", "load"]

#: The committed margins file.
MARGINS_FILE = REFERENCE_DATA / "margins.yml"
#: What a rule may match on.
FIELDS = ("item", "workload", "benchmark", "tool", "metric", "study")


class _Default(BaseModel):
    model_config = ConfigDict(extra="forbid")
    margin_pct: float = Field(gt=0, lt=100)
    reason: str = Field(min_length=1)


class _Rule(_Default):
    name: str = Field(min_length=1)
    match: list[dict[str, list[str]]] = Field(min_length=1)


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")
    default: _Default
    rules: list[_Rule] = Field(default_factory=list)


@dataclass(frozen=True)
class Rule:
    """One rule of the margins file: a margin and the comparisons it applies to.

    Attributes
    ----------
    name : str
        The rule's name (``cpu-memory``).
    margin : Margin
        Its margin (``source`` is ``margins.yml: <name>``).
    match : tuple of dict
        Alternatives; each maps fields to patterns (fnmatch, case-insensitive).
    """

    name: str
    margin: Margin
    match: tuple[dict[str, tuple[str, ...]], ...]

    def applies(self, fields: Mapping[str, object]) -> bool:
        """Whether one alternative's every field is given and matches one of its patterns."""
        for alt in self.match:
            if all(f in fields and fields[f] is not None and any(
                    fnmatch.fnmatchcase(str(fields[f]).lower(), p.lower()) for p in pats)
                   for f, pats in alt.items()):
                return True
        return False


@dataclass(frozen=True)
class Margins:
    """The margins of the file: a default and the rules, first match wins.

    Attributes
    ----------
    default : Margin
        The margin where no rule applies.
    rules : tuple of Rule
        In file order.
    path : pathlib.Path
        The file read.
    """

    default: Margin
    rules: tuple[Rule, ...]
    path: Path

    def lookup(self, **fields: object) -> Margin:
        """Return the margin of a comparison described by ``fields`` (see :data:`FIELDS`).

        Fields not in :data:`FIELDS` (other group keys of a table) are ignored.
        """
        for rule in self.rules:
            if rule.applies(fields):
                return rule.margin
        return self.default

    def __call__(self, key: Mapping[str, object]) -> Margin:
        """Return the margin of a group of a table (its key values), for ``margin=``."""
        return self.lookup(**dict(key))

    def with_fields(self, **fields: object):
        """Return a ``margin=`` callable that adds ``fields`` to every group's key values.

        E.g. ``margins.with_fields(benchmark="fio-rand")`` for a table whose groups only know
        their item and environment.
        """
        return lambda key: self.lookup(**{**fields, **dict(key)})


@functools.lru_cache(maxsize=8)
def _load(path: Path, mtime: float) -> Margins:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise SchemaError(f"{path}{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    try:
        f = _File.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise SchemaError(f"{path}: {field}: {err['msg']}") from None
    rules = []
    for r in f.rules:
        for alt in r.match:
            unknown = sorted(set(alt) - set(FIELDS))
            if unknown or not alt:
                raise SchemaError(f"{path}: rule {r.name!r}: match fields must be some of "
                                  f"{', '.join(FIELDS)}; got {', '.join(unknown) or 'none'}")
        rules.append(Rule(r.name, Margin.symmetric(r.margin_pct, " ".join(r.reason.split()),
                                                   f"margins.yml: {r.name}"),
                          tuple({k: tuple(v) for k, v in alt.items()} for alt in r.match)))
    default = Margin.symmetric(f.default.margin_pct, " ".join(f.default.reason.split()),
                               "margins.yml: default")
    return Margins(default, tuple(rules), path)


def load(path: str | os.PathLike[str] | None = None) -> Margins:
    """Read a margins file (default: the committed ``data/reference/margins.yml``).

    Parameters
    ----------
    path : path, optional
        Another margins file, same format.

    Returns
    -------
    Margins
        The default and the rules.

    Raises
    ------
    DataNotFound
        When the file does not exist.
    SchemaError
        When it is not valid YAML or a field is wrong (the message names the file and field).
    """
    p = Path(path) if path is not None else MARGINS_FILE
    if not p.is_file():
        raise DataNotFound(f"{p}: no margins file")
    return _load(p.resolve(), p.stat().st_mtime)
