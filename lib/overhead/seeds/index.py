"""``figures/index.html``: one page listing every report under ``figures/`` (make demo).

Each ``figures/<name>/report.html`` (the authors' rebuild, a live campaign, a seed study) is
listed with its title and when it was written, newest first.

    python -m overhead.seeds.index [FIGURES]
"""

from __future__ import annotations

import datetime as _dt
import html
import re
import sys
from pathlib import Path

from overhead.paths import FIGURES

_TITLE = re.compile(r"<title>(.*?)</title>", re.S)


def write(figures: str | Path = FIGURES) -> Path:
    """Write ``<figures>/index.html`` listing every ``<figures>/*/report.html``; return its path."""
    figures = Path(figures)
    rows = []
    for page in sorted(figures.glob("*/report.html"), key=lambda p: p.stat().st_mtime, reverse=True):
        m = _TITLE.search(page.read_text(errors="replace")[:4000])
        title = html.unescape(m.group(1)).strip() if m else page.parent.name
        when = _dt.datetime.fromtimestamp(page.stat().st_mtime, _dt.UTC)
        rows.append(f"<li><a href='{html.escape(page.parent.name)}/report.html'>"
                    f"{html.escape(title)}</a> <small>({html.escape(page.parent.name)}/, "
                    f"written {when:%Y-%m-%d %H:%M} UTC)</small></li>")
    body = "<ul>\n" + "\n".join(rows) + "\n</ul>" if rows else "<p>no report yet</p>"
    path = figures / "index.html"
    path.write_text("<!doctype html><html><head><meta charset='utf-8'><title>overhead: "
                    "reports</title></head><body style='font-family:sans-serif'>"
                    f"<h1>Reports</h1>\n{body}\n</body></html>\n")
    return path


if __name__ == "__main__":
    print(write(sys.argv[1] if len(sys.argv) > 1 else FIGURES))
