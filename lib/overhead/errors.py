"""Exceptions shared across the package, importable without pulling in pandas."""

from __future__ import annotations


class ParseError(ValueError):
    """Input is not valid output of the tool. ``str()`` is ``path:line: message``."""

    def __init__(self, path: str, line: int | None, message: str):
        self.path = path
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"
