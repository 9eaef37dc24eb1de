"""What a campaign file says of an environment: the base of every kind's spec model.

Each kind's file defines its spec (``kind: Literal["<name>"]`` and its own fields) on top of
:class:`EnvSpec`; :mod:`overhead.campaign.inventory` reads a campaign's ``environments:`` into
the spec of the kind each one names (:mod:`~overhead.environments.registry`).
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, ClassVar

from pydantic import (
    AfterValidator,
    AllowInfNan,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    field_validator,
)
from pydantic import Strict as StrictType

__all__ = ["MAX_SECONDS", "Address", "EnvSpec", "ImageRef", "Int", "Number", "Strict", "UserName"]

#: The longest time any timeout of a campaign may give (seconds): 7 days.
MAX_SECONDS = 7 * 24 * 3600.0


def _not_bool(value: object) -> object:
    """Refuse true/false where a number is wanted (YAML's ``true`` is not 1)."""
    if isinstance(value, bool):
        raise ValueError("a number, not true or false")
    return value


#: An integer of a campaign file: a YAML integer, never a bool (``true``) or float (``2.5``).
Int = Annotated[int, StrictType()]
#: A number of a campaign file: finite (no ``.inf`` or ``.nan``), never a bool.
Number = Annotated[float, BeforeValidator(_not_bool), AllowInfNan(False)]


#: Docker's image reference grammar (distribution/reference: ``[host[:port]/]path[:tag][@digest]``,
#: path components lower case): nothing that starts with ``-`` (an option to ``docker run``), no
#: space, ``$``, quote or control character.
_IMAGE = re.compile(
    r"(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
    r"(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?/)?"
    r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"
    r"(?::[\w][\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?")
#: A DNS name (RFC 1123 labels: letters, digits, inner hyphens; dots between).
_DNS = re.compile(r"(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)"
                  r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?")
#: A login name (POSIX portable user names, as useradd takes them).
_USER = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}")


def _image(value: str) -> str:
    """Check an image reference against Docker's grammar (see :data:`_IMAGE`)."""
    if len(value) > 255 or not _IMAGE.fullmatch(value):
        raise ValueError(f"{value!r} is not an image reference (name[:tag][@digest], e.g. "
                         "overhead/bench:latest; it may not start with '-' nor hold spaces, "
                         "quotes, '$' or control characters)")
    return value


def _address(value: str) -> str:
    """Check a host address: an IPv4 or IPv6 address or a DNS name, nothing else."""
    try:
        ipaddress.ip_address(value)
        return value
    except ValueError:
        pass
    if not _DNS.fullmatch(value) or value.startswith("-"):
        raise ValueError(f"{value!r} is not a host address (an IPv4 or IPv6 address or a DNS "
                         "name: letters, digits, '-' and '.')")
    return value


def _user(value: str) -> str:
    """Check a login name (see :data:`_USER`)."""
    if not _USER.fullmatch(value):
        raise ValueError(f"{value!r} is not a user name (a letter or '_', then letters, digits, "
                         "'_', '.', '-'; at most 32 characters)")
    return value


#: An image reference (Docker's grammar): never read as an option on a command line.
ImageRef = Annotated[str, AfterValidator(_image)]
#: A host address: an IP address or a DNS name.
Address = Annotated[str, AfterValidator(_address)]
#: A login name.
UserName = Annotated[str, AfterValidator(_user)]


class Strict(BaseModel):
    """Strict base: unknown fields are errors (a typo must not be silently ignored)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class EnvSpec(Strict):
    """What every environment has: its host, and optionally the benchmarks it runs.

    ``benchmarks`` limits the environment to benchmarks whose names match one of these
    shell-style patterns (``[fio-*, mysql-*]``: a second storage variant for the storage
    benchmarks only); default every benchmark. ``skip`` leaves out points of a benchmark's grid
    here: each entry names a ``benchmark`` (a pattern) and parameter values, and a point whose
    parameters have all those values is not run in this environment (``{benchmark: redis,
    clients: 100}``: a point that measures something else here).
    """

    #: Fields that are paths, resolved against the folder of the file that names them.
    path_fields: ClassVar[tuple[str, ...]] = ()

    host: str
    benchmarks: tuple[str, ...] | None = None
    skip: tuple[dict[str, str | Int | Number | bool], ...] = ()

    @field_validator("skip")
    @classmethod
    def _skip_names_a_benchmark(cls, skip: tuple) -> tuple:
        """Every skip entry names the benchmark it applies to and at least one parameter."""
        for entry in skip:
            if "benchmark" not in entry or len(entry) < 2:
                raise ValueError("a skip entry names a benchmark and parameter values: "
                                 "{benchmark: redis, clients: 100}")
        return skip

    def skips(self, benchmark: str, params: dict) -> bool:
        """Whether this environment leaves out a point of a benchmark's grid."""
        from fnmatch import fnmatchcase

        for entry in self.skip:
            if fnmatchcase(benchmark, str(entry["benchmark"])) and all(
                    k in params and str(params[k]) == str(v)
                    for k, v in entry.items() if k != "benchmark"):
                return True
        return False
