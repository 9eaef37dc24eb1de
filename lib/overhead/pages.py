"""One page builder for every report: the paper's, each campaign's, each seed study's, the index.

A :class:`Page` is a title and a list of HTML parts added in reading order (headings, text,
figures embedded as data URIs, tables) written as one self-contained file with one stylesheet
(:data:`STYLE`), so that every report looks the same and prints the same (A4, the margins
set in the stylesheet; ``overhead publish`` prints it with Chromium).

Tables are laid out from their cells (:func:`overhead.stats.tables.cells`): numbers are
right-aligned and text left-aligned, row labels in bold, missing values an em dash.
"""

from __future__ import annotations

import base64
import html
import os
import re
from pathlib import Path

import pandas as pd

from overhead.stats.tables import cells

#: The stylesheet of every page. Tables scroll sideways inside the page rather than widen it,
#: a printed page is A4 (Letter users set their own in the print dialog).
STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1150px;margin:2em auto;
 padding:0 1em;line-height:1.45;color:#222}
h1{font-size:1.6em;margin-bottom:.3em} h2{margin-top:1.8em;border-bottom:1px solid #ddd}
h3{margin-top:1.4em}
img{max-width:100%;height:auto;border:1px solid #eee}
.scroll{overflow-x:auto;margin:.6em 0}
table{border-collapse:collapse;font-size:12px}
caption{caption-side:top;text-align:left;font-weight:bold;padding:4px 0}
th,td{border-bottom:1px solid #ddd;padding:3px 7px;vertical-align:top;text-align:left}
thead th{border-bottom:2px solid #888;background:#f6f6f6}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody th{font-weight:600}
.note{color:#555} .missing{color:#b00} .empty{color:#777;font-style:italic}
.caveat{background:#fff8e1;padding:.4em .7em;border-left:3px solid #e0a800}
code{background:#f3f3f3;padding:0 3px}
@page{size:A4;margin:14mm}
@media print{body{max-width:none;margin:0} .scroll{overflow:visible} h2{break-after:avoid}
 img{break-inside:avoid}}
"""

_NUMBER = re.compile(r"^[-+\u2212]?(\d[\d,]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s?(%|[A-Za-z/%\u00b5]{0,8})?$")


def shown_path(path: str | os.PathLike[str]) -> str:
    """Name a folder on a page that may be published.

    Relative to the working folder where it is inside it, else by its last two parts (never
    the machine's absolute path).
    """
    path = Path(path)
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return Path(*path.parts[-2:]).as_posix() if len(path.parts) >= 2 else path.name


def is_number(text: str) -> bool:
    """Whether a cell's text is a number (with at most a short unit): such cells are right-aligned."""
    return bool(_NUMBER.match(text.strip()))


def _four_digits(frame: pd.DataFrame) -> pd.DataFrame:
    """Return a frame with its float cells as text of four significant digits (NaN stays NaN)."""
    floats = [i for i in range(frame.shape[1]) if pd.api.types.is_float_dtype(frame.iloc[:, i])]
    if not floats:
        return frame
    out = frame.copy()
    for i in floats:
        out.isetitem(i, pd.Series([v if pd.isna(v) else f"{v:.4g}" for v in frame.iloc[:, i]],
                                  index=frame.index, dtype=object))
    return out


def table_html(frame: pd.DataFrame, *, caption: str | None = None, index: bool = True) -> str:
    """Return a frame as an HTML table in the pages' layout.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as shown; its index becomes the row labels when ``index``.
    caption : str, optional
        The table's caption.
    index : bool
        Whether to show the index (False: the columns only).

    Returns
    -------
    str
        ``<div class="scroll"><table>...</table></div>``, text escaped.
    """
    if not index:
        frame = frame.reset_index(drop=True)
    header, body = cells(_four_digits(frame))
    nidx = frame.index.nlevels if index else 0
    if not index:
        header, body = header[1:], [row[1:] for row in body]

    def esc(s: str) -> str:
        return html.escape(s).replace("\n", "<br>")

    out = ["<div class='scroll'><table>"]
    if caption:
        out.append(f"<caption>{esc(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr></thead><tbody>")
    for row in body:
        tds = [f"<th>{esc(v)}</th>" for v in row[:nidx]]
        tds += [f"<td class='num'>{esc(v)}</td>" if is_number(v) else f"<td>{esc(v)}</td>"
                for v in row[nidx:]]
        out.append("<tr>" + "".join(tds) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out) + "\n"


def embed_png(path: str | os.PathLike[str], *, alt: str | None = None) -> str:
    """Return an ``<img>`` holding a PNG file inline (a report stays one file)."""
    path = Path(path)
    data = base64.b64encode(path.read_bytes()).decode()
    return (f'<img alt="{html.escape(alt or path.stem)}" style="max-width:100%" '
            f'src="data:image/png;base64,{data}">')


class Page:
    """A report page, built part by part in reading order and written as one HTML file.

    Parameters
    ----------
    title : str
        The ``<title>`` and, unless ``heading`` says otherwise, the ``<h1>``.
    heading : str, optional
        The ``<h1>`` when it differs from the title.
    """

    def __init__(self, title: str, *, heading: str | None = None) -> None:
        self.title = title
        self.parts: list[str] = [f"<h1>{html.escape(heading or title)}</h1>"]

    def heading(self, text: str, level: int = 2) -> Page:
        """Add a heading (``<h2>`` by default)."""
        self.parts.append(f"<h{level}>{html.escape(text)}</h{level}>")
        return self

    def text(self, text: str, *, cls: str | None = None) -> Page:
        """Add a paragraph of plain text (escaped); ``cls`` is its class (note, caveat...)."""
        attr = f" class='{cls}'" if cls else ""
        self.parts.append(f"<p{attr}>{html.escape(text)}</p>")
        return self

    def raw(self, markup: str) -> Page:
        """Add HTML as it is (the caller escaped what needs it)."""
        self.parts.append(markup)
        return self

    def items(self, texts: list[str]) -> Page:
        """Add a bulleted list of plain texts."""
        self.parts.append("<ul>" + "".join(f"<li>{html.escape(t)}</li>" for t in texts) + "</ul>")
        return self

    def table(self, frame: pd.DataFrame | None, *, caption: str | None = None, index: bool = True,
              empty: str = "nothing measured for this table") -> Page:
        """Add a table (:func:`table_html`), or say ``empty`` when there is none or no rows."""
        if frame is None or frame.empty:
            self.parts.append(f"<p class='empty'>{html.escape(empty)}</p>")
        else:
            self.parts.append(table_html(frame, caption=caption, index=index))
        return self

    def figure(self, png: str | os.PathLike[str], *, missing: str | None = None,
               links: tuple[str, ...] = ()) -> Page:
        """Add a PNG figure embedded, with links to its sibling files of the given suffixes.

        Where the PNG is not there, ``missing`` is said instead (default: "figure X not drawn").
        """
        png = Path(png)
        if not png.is_file():
            self.parts.append(f"<p class='missing'>{html.escape(missing or f'figure {png.name} not drawn')}</p>")
            return self
        self.parts.append(embed_png(png))
        found = [f"<a href='{html.escape(png.stem)}.{ext}'>{ext}</a>" for ext in links
                 if png.with_suffix(f".{ext}").is_file()]
        if found:
            self.parts.append(f"<p class='note'>files: {' '.join(found)}</p>")
        return self

    def render(self) -> str:
        """Return the page's HTML."""
        return ("<!doctype html><html><head><meta charset='utf-8'>"
                f"<meta name='viewport' content='width=device-width,initial-scale=1'>"
                f"<title>{html.escape(self.title)}</title><style>{STYLE}</style></head><body>\n"
                + "\n".join(self.parts) + "\n</body></html>\n")

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path``; return it."""
        path = Path(path)
        path.write_text(self.render())
        return path


__all__ = ["STYLE", "Page", "embed_png", "is_number", "table_html"]
