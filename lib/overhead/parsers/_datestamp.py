"""Date stamps with zone abbreviations, and the numactl options of benchmark wrapper lines.

Wrapper scripts commonly print ``Running <tool> [with numaopts < ... >], started at <date>``
before each run (``date`` output such as ``Sat Jul 12 10:14:38 CDT 2014``), and dstat stamps
its CSV header with ``02 Jul 2014 11:17:45 CDT``. :func:`started_at` reads both as UTC.
:func:`numa_options` normalizes the numactl options the way the LINPACK parser does, and
:func:`sockets` derives how many sockets a run used from them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

import pandas as pd

# US zone abbreviations as ``date`` prints them (the authors were in Austin, CDT), and UTC.
# An unknown abbreviation gives no timestamp rather than a guessed offset.
_ZONES = {
    "UTC": "+0000", "GMT": "+0000",
    "EDT": "-0400", "EST": "-0500", "CDT": "-0500", "CST": "-0600",
    "MDT": "-0600", "MST": "-0700", "PDT": "-0700", "PST": "-0800",
}

_FORMATS = {
    6: ((0, 1, 2, 3, 5), "%a %b %d %H:%M:%S %Y %z", 4),  # Sat Jul 12 10:14:38 CDT 2014
    5: ((0, 1, 2, 3), "%d %b %Y %H:%M:%S %z", 4),  # 02 Jul 2014 11:17:45 CDT (dstat)
}


def started_at(stamp: str) -> pd.Timestamp | None:
    """Parse a ``date``-style or dstat-style timestamp with a zone abbreviation as UTC.

    Parameters
    ----------
    stamp : str
        E.g. "Sat Jul 12 10:14:38 CDT 2014" or "02 Jul 2014 11:17:45 CDT".

    Returns
    -------
    pandas.Timestamp or None
        The time in UTC; None when the text is not such a timestamp or its zone is not known.
    """
    parts = stamp.split()
    fmt = _FORMATS.get(len(parts))
    if fmt is None:
        return None
    keep, pattern, zone_at = fmt
    tz = _ZONES.get(parts[zone_at])
    if tz is None:
        return None
    try:
        dt = datetime.strptime(" ".join([parts[i] for i in keep] + [tz]), pattern)
    except ValueError:
        return None
    return pd.Timestamp(dt).tz_convert("UTC")


def numa_options(raw: str) -> str:
    """Normalize the whitespace of the numactl options of a ``with numaopts <  ...  >`` line.

    Parameters
    ----------
    raw : str
        The options as printed between ``<`` and ``>``.

    Returns
    -------
    str
        The options separated by single spaces.
    """
    return " ".join(raw.split())



def _id_list(text: str) -> set[int] | None:
    """Parse a numactl node or CPU list such as ``0,1`` or ``0-7,16-23``; None if not one."""
    ids: set[int] = set()
    for part in text.split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part.strip())
        if not m:
            return None
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if hi < lo or hi - lo > 4096:
            return None
        ids.update(range(lo, hi + 1))
    return ids or None


def _option(options: list[str], *names: str) -> str | None:
    """Return the value of the first ``--name=value`` (or ``--name value``) among ``options``."""
    for i, tok in enumerate(options):
        for name in names:
            if tok.startswith(name + "="):
                return tok.split("=", 1)[1]
            if tok == name and i + 1 < len(options):
                return options[i + 1]
    return None


def sockets(numa: str | None, nodes: Sequence[frozenset[int]] | None = None) -> int | None:
    """Tell how many sockets a run used, from its numactl options.

    Rules: ``--interleave=<nodes>`` or ``--cpunodebind=<nodes>`` -> the number of nodes
    listed; ``--localalloc`` with ``--physcpubind=<cpus>`` -> the number of the host's NUMA
    nodes (``nodes``, one per socket) those CPUs lie on, provided every CPU is one of that
    host's; without ``nodes`` a CPU list says nothing about sockets (the parsers do not know
    the host). Anything else (no options, ``all``, CPUs the host does not have) -> None.

    Parameters
    ----------
    numa : str or None
        The normalized options (e.g. "--physcpubind=0-31 --interleave=0,1").
    nodes : sequence of frozenset of int, optional
        The CPUs of each NUMA node (socket) of the host the run was on.

    Returns
    -------
    int or None
        The number of sockets; None when the options do not say.
    """
    if not numa:
        return None
    opts = numa.split()
    for names in (("--interleave", "-i"), ("--cpunodebind", "-N")):
        value = _option(opts, *names)
        if value is not None:
            nodes = _id_list(value)
            return len(nodes) if nodes else None
    if "--localalloc" in opts or "-l" in opts:
        value = _option(opts, "--physcpubind", "-C")
        cpus = _id_list(value) if value is not None else None
        if not cpus or not nodes or not cpus <= frozenset().union(*nodes):
            return None
        return sum(1 for node in nodes if cpus & node)
    return None


def wrapper_context(numa: str | None, stamp: str) -> dict:
    """Read the context a ``Running <tool> [with numaopts < ... >], started at <date>`` line states.

    Parameters
    ----------
    numa : str or None
        The options between ``<`` and ``>``, if the line has them.
    stamp : str
        The date after ``started at``.

    Returns
    -------
    dict
        p_numa, p_sockets (when the options tell) and started_at (when the date parses).
    """
    ctx: dict = {}
    if numa:
        ctx["p_numa"] = numa_options(numa)
        n_sockets = sockets(ctx["p_numa"])
        if n_sockets is not None:
            ctx["p_sockets"] = n_sockets
    ts = started_at(stamp)
    if ts is not None:
        ctx["started_at"] = ts
    return ctx
