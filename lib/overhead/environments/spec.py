"""What a campaign file says of an environment: the base of every kind's spec model.

Each kind's file defines its spec (``kind: Literal["<name>"]`` and its own fields) on top of
:class:`EnvSpec`; :mod:`overhead.campaign.inventory` reads a campaign's ``environments:`` into
the spec of the kind each one names (:mod:`~overhead.environments.registry`).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

__all__ = ["EnvSpec", "Strict"]


class Strict(BaseModel):
    """Strict base: unknown fields are errors (a typo must not be silently ignored)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class EnvSpec(Strict):
    """What every environment has: its host, and optionally the benchmarks it runs.

    ``benchmarks`` limits the environment to benchmarks whose names match one of these
    shell-style patterns (``[fio-*, mysql-*]``: a second storage variant for the storage
    benchmarks only); default every benchmark.
    """

    #: Fields that are paths, resolved against the folder of the file that names them.
    path_fields: ClassVar[tuple[str, ...]] = ()

    host: str
    benchmarks: tuple[str, ...] | None = None
