"""How a trial fails in an environment: a cause in a few words, the tool's stderr, the exit status."""

from __future__ import annotations

from pathlib import Path

from overhead.errors import OverheadError

__all__ = ["EnvironmentDown", "HostNotResponding", "Interrupted", "TrialFailed", "tail"]


class TrialFailed(OverheadError):
    """A trial failed; ``cause`` says why in a few words, ``stderr`` holds the tool's words."""

    def __init__(self, cause: str, stderr: str = "", exit_status: int | None = None,
                 keep: Path | None = None):
        """Record the cause, stderr, exit status and where the failed trial's files went."""
        super().__init__(cause)
        self.cause = cause
        self.stderr = stderr
        self.exit_status = exit_status
        self.keep = keep


class EnvironmentDown(TrialFailed):
    """The environment could not be started (or restarted); its trials fail at once."""


class HostNotResponding(TrialFailed):
    """An endpoint's SSH server left a request unanswered for its liveness bound (hung).

    The environment is not marked down: the host may answer again.
    """


class Interrupted(OverheadError):
    """The run was told to stop now (a second SIGINT or SIGTERM) while a trial ran.

    The trial is recorded ``interrupted`` and runs again on resume; it is not a failure.
    """


def tail(text: str, n: int = 2000) -> str:
    """Return the last ``n`` characters of ``text``."""
    return text[-n:]
