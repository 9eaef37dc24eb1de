"""Display labels of (environment, variant) pairs, their order, colours and markers.

The label of a pair is built from its parts: the environment's name (``Native``, ``Docker``,
``KVM``, ``VM``) followed by the variant's parts in words (``net=nat`` -> ``NAT``,
``storage=volume`` -> ``volume``, ``tuned`` -> ``-tuned``), so ``("docker",
"net=nat,storage=aufs")`` is "Docker NAT AUFS" and ``("kvm", "tuned")`` "KVM-tuned". A study
whose data names a variant in its own words passes ``aliases`` (pair -> label) for those.

A VM that QEMU ran under software emulation (``accel=tcg`` in its variant) is labelled
"QEMU TCG", never KVM: its numbers say nothing about hardware virtualization.

Colours are the Okabe-Ito palette, fixed per label so that "KVM" is the same green in every
figure; markers differ too, so figures survive grey-scale printing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

#: Display name of each environment.
ENVIRONMENT_NAMES: dict[str, str] = {
    "native": "Native", "docker": "Docker", "kvm": "KVM", "vm": "VM", "static": "Static",
    "podman": "Podman", "lxc": "LXC",
}

#: Words for variant parts; a part not listed is shown as written.
_PART_WORDS: dict[str, str] = {
    "net=host": "net=host", "net=nat": "NAT", "storage=volume": "volume", "storage=aufs": "AUFS",
    "storage=overlay": "overlay", "runtime=runc": "runc", "runtime=crun": "crun",
    # Podman (overhead.environments.podman.variant) and LXC (overhead.environments.lxc.variant)
    "mode=rootful": "rootful", "mode=rootless": "rootless", "net=bridge": "bridge",
    "net=slirp4netns": "slirp4netns", "net=pasta": "pasta", "ports=slirp4netns": "slirp-ports",
    "driver=vfs": "vfs", "driver=fuse-overlayfs": "fuse-overlayfs", "net=veth-bridge": "veth",
    "privileged=true": "privileged", "privileged=false": "unprivileged",
    # a VM on a bridge through a tap device (overhead.environments.qemu.variant)
    "net=tap": "tap",
}
#: Parts that attach to the name with a hyphen (the paper writes KVM-tuned).
_SUFFIX_PARTS = ("tuned", "untuned")

#: The labels in the order tables and legends list them: native first, containers, then VMs.
LABEL_ORDER: tuple[str, ...] = (
    "Native", "Docker", "Docker net=host", "Docker net=host volume", "Docker net=host AUFS",
    "Docker net=host overlay", "Docker NAT", "Docker NAT volume", "Docker NAT AUFS",
    "Docker NAT overlay", "KVM", "KVM-untuned", "KVM-tuned", "KVM-untuned tap", "KVM-tuned tap",
    "QEMU TCG", "QEMU TCG untuned", "QEMU TCG tuned", "QEMU TCG untuned tap",
    "QEMU TCG tuned tap",
)

# Okabe & Ito (2008), "Color Universal Design".
OKABE_ITO = {
    "black": "#000000", "orange": "#E69F00", "sky_blue": "#56B4E9", "green": "#009E73",
    "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7",
    "grey": "#999999",
}

#: Label -> (colour, marker). Same family = same colour: Docker with host networking is orange
#: whatever its storage, Docker NAT vermillion, AUFS purple, KVM green.
STYLE: dict[str, tuple[str, str]] = {
    "Native": (OKABE_ITO["blue"], "o"),
    "Docker": (OKABE_ITO["orange"], "s"),
    "Docker net=host": (OKABE_ITO["orange"], "s"),
    "Docker net=host volume": (OKABE_ITO["orange"], "s"),
    "Docker NAT": (OKABE_ITO["vermillion"], "D"),
    "Docker NAT volume": (OKABE_ITO["vermillion"], "D"),
    "Docker NAT AUFS": (OKABE_ITO["purple"], "v"),
    "Docker net=host AUFS": (OKABE_ITO["purple"], "v"),
    "KVM": (OKABE_ITO["green"], "^"),
    "KVM-tuned": (OKABE_ITO["green"], "^"),
    "KVM-untuned": (OKABE_ITO["sky_blue"], "<"),
    "QEMU TCG": (OKABE_ITO["grey"], "x"),
    "QEMU TCG untuned": (OKABE_ITO["grey"], "x"),
    "QEMU TCG tuned": (OKABE_ITO["black"], "x"),
    # on a bridge (tap): the same colour, a filled marker
    "KVM-untuned tap": (OKABE_ITO["sky_blue"], ">"),
    "KVM-tuned tap": (OKABE_ITO["green"], "p"),
    "QEMU TCG untuned tap": (OKABE_ITO["grey"], "h"),
    "QEMU TCG tuned tap": (OKABE_ITO["black"], "h"),
    # overlayfs is what stands in for the paper's AUFS today: AUFS's colour, another marker
    "Docker NAT overlay": (OKABE_ITO["purple"], "P"),
    "Docker net=host overlay": (OKABE_ITO["purple"], "X"),
    "published": (OKABE_ITO["black"], "_"),
}

#: Legend order: the same as tables (native, containers, VMs), then the extras.
_ORDER = [*LABEL_ORDER, *(n for n in STYLE if n not in LABEL_ORDER)]


def label(environment: str, variant: str | None = None,
          aliases: Mapping[tuple[str, str], str] | None = None) -> str:
    """Return the display label of an (environment, variant) pair.

    Parameters
    ----------
    environment : str
        ``native``, ``docker``, ``kvm``, ``vm``, ``static`` or another name.
    variant : str or None
        Comma-separated parts (``net=nat,storage=volume``); None or "default" for none.
    aliases : mapping, optional
        (environment, variant) -> label for pairs a study names in its own words.

    Returns
    -------
    str
        E.g. ("docker", "net=nat") -> "Docker NAT", ("kvm", "tuned") -> "KVM-tuned",
        ("vm", "accel=tcg") -> "QEMU TCG".
    """
    variant = variant or "default"
    if aliases and (environment, variant) in aliases:
        return aliases[(environment, variant)]
    parts = [] if variant == "default" else [p.strip() for p in variant.split(",") if p.strip()]
    if environment in ("kvm", "vm") and "accel=tcg" in parts:
        parts.remove("accel=tcg")
        return " ".join(["QEMU TCG", *(_PART_WORDS.get(p, p) for p in parts)])
    name = ENVIRONMENT_NAMES.get(environment, environment.capitalize())
    suffix = [p for p in parts if p in _SUFFIX_PARTS]
    words = [_PART_WORDS.get(p, p) for p in parts if p not in _SUFFIX_PARTS]
    known = all(p in _PART_WORDS or p in _SUFFIX_PARTS for p in parts)
    if not known:  # a variant in a study's own words: keep it as written
        return f"{name} {variant}"
    return " ".join([name + "".join(f"-{s}" for s in suffix), *words])


def labels(df: pd.DataFrame, aliases: Mapping[tuple[str, str], str] | None = None) -> pd.Series:
    """Return the display label of every row of ``df`` (computed once per distinct pair).

    Parameters
    ----------
    df : pandas.DataFrame
        Rows with ``environment`` and ``variant`` columns.
    aliases : mapping, optional
        As for :func:`label`.

    Returns
    -------
    pandas.Series
        String labels aligned with ``df`` (NA where the environment is missing).
    """
    env = df["environment"].astype("string")
    var = df["variant"].astype("string")
    keys = env.fillna("") + "\x00" + var.fillna("")
    names = {k: (label(*k.split("\x00"), aliases=aliases) if not k.startswith("\x00") else None)
             for k in keys.unique()}
    return keys.map(names).astype("string")


#: A family's style for labels not in :data:`STYLE` (an LXC container's label names its
#: network, storage and privilege: "LXC veth overlay privileged"), by the label's first word.
FAMILIES: dict[str, tuple[str, str]] = {
    "LXC": (OKABE_ITO["yellow"], "p"),
}


def _style(name: str) -> tuple[str, str]:
    if name in STYLE:
        return STYLE[name]
    first = str(name).split(" ", 1)[0]
    return FAMILIES.get(first, (OKABE_ITO["grey"], "o"))


def colour(name: str) -> str:
    """Return the colour of a label; an unknown one of no known family gets grey, not a random one."""
    return _style(name)[0]


def marker(name: str) -> str:
    """Return the marker of a label."""
    return _style(name)[1]


def palette(names: Iterable[str]) -> dict[str, str]:
    """Return a seaborn/matplotlib palette dict for the labels present."""
    return {n: colour(n) for n in names}


def order(names: Iterable[str]) -> list[str]:
    """Sort labels in the fixed legend order (unknown ones last, alphabetically)."""
    names = list(dict.fromkeys(names))
    known = [n for n in _ORDER if n in names]
    return known + sorted(n for n in names if n not in STYLE)


def ordered(values: pd.Series, categories: Iterable[str] | None = None) -> pd.Series:
    """Return ``values`` as an ordered categorical in legend order, so that sorting follows it.

    Parameters
    ----------
    values : pandas.Series
        Labels.
    categories : iterable of str, optional
        The order to use (default: :func:`order` of the labels present).

    Returns
    -------
    pandas.Series
        Ordered categorical with the same index.
    """
    cats = list(categories) if categories is not None else order(values.dropna().unique())
    return pd.Series(pd.Categorical(values, categories=cats, ordered=True), index=values.index,
                     name=values.name)
