"""The native environment: the runner runs on the SSH endpoint (the host) itself.

Its commands are the plain POSIX ones of :mod:`~overhead.environments.posix` (re-exported
here); the lifecycle is the base one: runners copied, the host's facts read, nothing to stop.
"""

from __future__ import annotations

from typing import Literal

from overhead.environments.base import Environment
from overhead.environments.posix import (
    FACT_FIELDS,
    KILL_AFTER,
    facts_command,
    parse_facts,
    prepare_command,
    runner_command,
    timeout_wrap,
)
from overhead.environments.spec import EnvSpec

__all__ = ["FACT_FIELDS", "KILL_AFTER", "NativeEnv", "NativeEnvironment", "facts_command",
           "parse_facts", "prepare_command", "runner_command", "timeout_wrap"]


class NativeEnv(EnvSpec):
    """The runner runs on the host itself."""

    kind: Literal["native"]


class NativeEnvironment(Environment):
    """The runner on the host itself."""

    Spec = NativeEnv
    tidy_environment = "native"
