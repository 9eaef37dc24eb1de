"""One look for every figure: theme, one colour-blind-safe colour per environment, saving.

Colours are the Okabe-Ito palette, fixed per environment label so that "KVM" is the same green
in every figure of every notebook; markers differ too, so figures survive grey-scale printing.
Static figures are written as PNG, SVG and PDF with fixed metadata (reproducible files);
interactive ones as plotly HTML next to a single shared copy of plotly.js.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))

import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from overhead.ibm import LABEL_ORDER  # noqa: E402
from overhead.ibm import label as ibm_label  # noqa: E402

# Okabe & Ito (2008), "Color Universal Design".
OKABE_ITO = {
    "black": "#000000", "orange": "#E69F00", "sky_blue": "#56B4E9", "green": "#009E73",
    "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7",
    "grey": "#999999",
}

#: Environment label -> (colour, marker). Same family = same colour: Docker with host networking
#: is orange whatever its storage, Docker NAT vermillion, AUFS purple, KVM green.
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
    "published": (OKABE_ITO["black"], "_"),
}

#: Legend order: the same as tables (native, containers, VMs), then the extras.
ORDER = [*LABEL_ORDER, *(n for n in STYLE if n not in LABEL_ORDER)]


def label(environment: str, variant: str | None = None) -> str:
    """Display label of an environment/variant pair (the paper's names)."""
    return ibm_label(environment, variant)


def colour(name: str) -> str:
    """Colour of an environment label; unknown labels get grey rather than a random colour."""
    return STYLE.get(name, (OKABE_ITO["grey"], "o"))[0]


def marker(name: str) -> str:
    """Marker of an environment label."""
    return STYLE.get(name, (OKABE_ITO["grey"], "o"))[1]


def palette(names: Iterable[str]) -> dict[str, str]:
    """A seaborn/matplotlib palette dict for the labels present."""
    return {n: colour(n) for n in names}


def order(names: Iterable[str]) -> list[str]:
    """Labels sorted in the fixed legend order (unknown ones last, alphabetically)."""
    names = list(dict.fromkeys(names))
    known = [n for n in ORDER if n in names]
    return known + sorted(n for n in names if n not in STYLE)


def theme() -> None:
    """Apply the project's seaborn theme (call once per notebook)."""
    sns.set_theme(context="notebook", style="whitegrid", font_scale=1.0)
    plt.rcParams.update({
        "figure.dpi": 110, "savefig.dpi": 150, "savefig.bbox": "tight",
        "axes.titleweight": "bold", "legend.frameon": True, "legend.framealpha": 0.9,
        "svg.hashsalt": "overhead", "pdf.fonttype": 42,
    })


def save(fig, outdir: str | os.PathLike[str], name: str,
         formats: Sequence[str] = ("png", "svg", "pdf")) -> list[Path]:
    """Write ``fig`` as ``outdir/name.<fmt>`` for each format, with fixed metadata; returns paths."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = outdir / f"{name}.{fmt}"
        metadata = {"png": {"Software": "overhead"}, "svg": {"Date": None, "Creator": "overhead"},
                    "pdf": {"CreationDate": None, "ModDate": None, "Creator": "overhead"}}[fmt]
        fig.savefig(path, format=fmt, metadata=metadata)
        paths.append(path)
    return paths


def save_html(fig, outdir: str | os.PathLike[str], name: str) -> Path:
    """Write a plotly figure as ``outdir/name.html``; plotly.js is written once beside it."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    path = outdir / f"{name}.html"
    fig.write_html(path, include_plotlyjs="directory", full_html=True)
    return path


def plotly_colours(names: Iterable[str]) -> dict[str, str]:
    """The same colours for plotly's ``color_discrete_map``."""
    return palette(names)


def plotly_symbols(names: Iterable[str]) -> dict[str, str]:
    """plotly marker symbols matching the matplotlib markers."""
    mpl_to_plotly = {"o": "circle", "s": "square", "D": "diamond", "v": "triangle-down",
                     "^": "triangle-up", "<": "triangle-left", "x": "x", "_": "line-ew"}
    return {n: mpl_to_plotly[marker(n)] for n in names}


def plotly_style(name: str) -> dict:
    """plotly trace keywords (line and marker) in an environment's colour and symbol."""
    c = colour(name)
    return {"line": {"color": c}, "marker": {"symbol": plotly_symbols([name])[name], "color": c}}


def plotly_ci(center, low, high) -> dict:
    """A plotly ``error_x``/``error_y`` dict drawing the interval [low, high] around ``center``
    (asymmetric: bootstrap and Fieller intervals need not be symmetric)."""
    return {"type": "data", "symmetric": False, "array": high - center, "arrayminus": center - low}
