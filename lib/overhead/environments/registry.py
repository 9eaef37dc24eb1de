"""Environment kinds by the name a campaign file gives them (``kind: docker``).

Adding a kind is adding its file (a spec model, ``kind: Literal["<name>"]`` on
:class:`~overhead.environments.spec.EnvSpec`, and an
:class:`~overhead.environments.base.Environment` subclass naming it as ``Spec``) and one line
here; the campaign's inventory reads the new kind's fields from then on.
"""

from __future__ import annotations

from overhead.environments.base import Environment
from overhead.environments.docker import DockerEnvironment
from overhead.environments.lxc import LxcEnvironment
from overhead.environments.native import NativeEnvironment
from overhead.environments.podman import PodmanEnvironment
from overhead.environments.spec import EnvSpec
from overhead.environments.static import StaticEnvironment
from overhead.environments.vm import VmEnvironment

__all__ = ["KINDS", "environment_class", "path_fields", "specs"]

#: kind name -> the environment that runs it (in the order error messages list them)
KINDS: dict[str, type[Environment]] = {
    "native": NativeEnvironment,
    "static": StaticEnvironment,
    "docker": DockerEnvironment,
    "podman": PodmanEnvironment,
    "vm": VmEnvironment,
    "lxc": LxcEnvironment,
}


def environment_class(kind: str) -> type[Environment]:
    """Return the environment class of ``kind`` (a KeyError names an unknown kind)."""
    return KINDS[kind]


def specs() -> tuple[type[EnvSpec], ...]:
    """Return every kind's spec model, in the order of :data:`KINDS`."""
    return tuple(cls.Spec for cls in KINDS.values())


def path_fields(kind: object) -> tuple[str, ...]:
    """Return the fields of a kind's spec that are paths (none for an unknown kind)."""
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    return cls.Spec.path_fields if cls is not None else ()
