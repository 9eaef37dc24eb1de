"""A static environment: a VM or container the user already runs, reached by SSH as its own host.

It runs like native; the campaign file says what it is for the tidy table.
"""

from __future__ import annotations

from typing import Literal

from overhead.environments.base import Context, Environment
from overhead.environments.spec import EnvSpec

__all__ = ["StaticEnv", "StaticEnvironment"]


class StaticEnv(EnvSpec):
    """A VM or container the user already runs, reachable by SSH as ``host``: runs like native."""

    kind: Literal["static"]
    #: What it is, for the tidy table (``kvm``, ``docker``, ``vm``...): static by default.
    environment: str = "static"
    variant: str | None = None


class StaticEnvironment(Environment):
    """A VM or container the user runs, reached by SSH as its own host: like native."""

    Spec = StaticEnv

    def __init__(self, ctx: Context):
        """Take the tidy environment and variant from the spec."""
        super().__init__(ctx)
        self.tidy_environment = ctx.spec.environment
        self.variant = ctx.spec.variant
