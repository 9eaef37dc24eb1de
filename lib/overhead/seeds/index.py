"""``figures/index.html``: one page listing every report under ``figures/`` (make demo).

Each ``figures/<name>/report.html`` (the authors' rebuild, a live campaign, a seed study) is
listed with its title (from the study's registration, :mod:`overhead.studies`, else the page's
``<title>``) and when it was written, newest first.

    python -m overhead.seeds.index [FIGURES]
"""

from __future__ import annotations

import datetime as _dt
import html
import re
import sys
from pathlib import Path

from overhead import studies
from overhead.pages import Page
from overhead.paths import FIGURES

_TITLE = re.compile(r"<title>(.*?)</title>", re.S)


def write(figures: str | Path = FIGURES) -> Path:
    """Write ``<figures>/index.html`` listing every ``<figures>/*/report.html``; return its path."""
    figures = Path(figures)
    rows = []
    for report in sorted(figures.glob("*/report.html"), key=lambda p: p.stat().st_mtime, reverse=True):
        reg = studies.read(report.parent)
        m = None if reg else _TITLE.search(report.read_text(errors="replace")[:4000])
        title = reg.title if reg else html.unescape(m.group(1)).strip() if m else report.parent.name
        when = _dt.datetime.fromtimestamp(report.stat().st_mtime, _dt.UTC)
        rows.append(f"<li><a href='{html.escape(report.parent.name)}/report.html'>"
                    f"{html.escape(title)}</a> <small>({html.escape(report.parent.name)}/, "
                    f"written {when:%Y-%m-%d %H:%M} UTC)</small></li>")
    page = Page("overhead: reports", heading="Reports")
    page.raw("<ul>\n" + "\n".join(rows) + "\n</ul>" if rows else "<p class='empty'>no report yet</p>")
    return page.write(figures / "index.html")


if __name__ == "__main__":
    print(write(sys.argv[1] if len(sys.argv) > 1 else FIGURES))
