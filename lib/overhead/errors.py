"""The exceptions of the package, all under one root, importable without pulling in pandas.

Every error that a user's input can cause (a file that does not parse, a table that does not
follow the data model, data that is missing or cannot support a statistic) is an
:class:`OverheadError`. The command line catches that one class and prints the message on one
line, without a traceback, with exit status 2. Subclasses also derive from the built-in class
that describes them (``ValueError``, ``KeyError``, ``FileNotFoundError``), so callers that catch
those keep working.
"""

from __future__ import annotations


class OverheadError(Exception):
    """Root of every error the package raises on bad input or missing data.

    ``str()`` is the whole message a user sees: it names the file, line, column or field.
    """


class ParseError(OverheadError, ValueError):
    """Input is not valid output of the tool.

    ``str()`` is ``path:line: message``.

    Parameters
    ----------
    path : str
        The file (or ``<string>``/``<input>``) that was being read.
    line : int or None
        1-based line number, or None when the error concerns the whole file.
    message : str
        What is wrong.
    """

    def __init__(self, path: str, line: int | None, message: str):
        self.path = path
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        """Return ``path:line: message`` (``path: message`` when there is no line)."""
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"


class RunFailed(ParseError):
    """The file is the tool's output, but the run it records gave no result.

    A fio log whose jobs never finished, an ``ab`` run that aborted, a netperf or iperf3 that
    could not connect, a redis-benchmark whose server went away, a dstat CSV with only its
    header: the tool ran and failed. That is a finding about the environment, not a malformed
    file, so ingest records it as a failed run (in the provenance, with this message) instead of
    stopping; the command line still exits 2.

    ``str()`` is ``path:line: the run did not finish: what``, the line being the one that shows
    the failure (the tool's error message), or None when it is the absence of any result.

    Parameters
    ----------
    path : str
        The file that was being read.
    line : int or None
        The line that shows the failure, or None.
    what : str
        What the file shows: the tool's own error message where it printed one.
    """

    def __init__(self, path: str, line: int | None, what: str):
        self.what = what
        super().__init__(path, line, f"the run did not finish: {what}")


class InputError(OverheadError, ValueError):
    """An input path cannot be used: a directory where a file is wanted, unreadable, missing."""


class DataNotFound(OverheadError, FileNotFoundError):
    """Data the caller needs is not where it was looked for; the message says how to get it."""


class SchemaError(OverheadError, ValueError):
    """A table does not follow the tidy data model; the message names the column and row."""


class DataError(OverheadError, ValueError):
    """Rows a study needs are missing or inconsistent; the message names them."""


class LockHeld(OverheadError, RuntimeError):
    """Another process holds a lock (a campaign being run); the message names file and pid."""


class DiskFull(OverheadError, OSError):
    """The controller's disk (or quota) is full while writing a file; the message names the file.

    Nothing recorded before is lost: the file being written is left as it was (or not at all),
    and whatever was under way is done again by the next run.
    """


class HostBusy(OverheadError, RuntimeError):
    """A measured host stayed busy with work outside the campaign.

    The message says how busy, with what, and that the finished trials are kept (run again
    when the host is quiet).
    """


__all__ = ["DataError", "DataNotFound", "DiskFull", "HostBusy", "InputError", "LockHeld", "OverheadError",
           "ParseError", "RunFailed", "SchemaError"]
