"""Driving a headless browser: Chromium prints a report to PDF, kaleido exports plotly figures.

Debian's chromium (``apt-get install chromium``, part of ``make debian``) does both, offline:
:func:`print_pdf` runs it headless in its own process group with a private profile and a time
limit; :func:`export_plotly` hands it to plotly's ``write_image`` through kaleido (one browser
for every figure). :func:`plotly_figure` reads a figure back from the page ``plots.save_html``
wrote, so a plotly-only figure can be exported without the notebook that drew it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

from overhead.errors import DataNotFound, InputError, OverheadError

#: Static figure formats a plotly page is exported as by default.
FIGURE_FORMATS = ("pdf", "svg")
#: Seconds headless chromium may take to print a report.
PDF_TIMEOUT = 180.0
#: Chromium executables looked for on PATH, in this order.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

_PLOTLY_CALL = "Plotly.newPlot("


def is_plotly_page(path: Path) -> bool:
    """Whether ``path`` is a plotly figure page (``plots.save_html``), not the report or a table."""
    if path.suffix != ".html" or path.name == "report.html":
        return False
    try:
        return _PLOTLY_CALL in path.read_text(errors="replace")
    except OSError:
        return False


def plotly_figure(path: str | os.PathLike[str]) -> dict:
    """Read the figure (data and layout) back from a page plotly's ``write_html`` wrote.

    Parameters
    ----------
    path : path
        An HTML page with one ``Plotly.newPlot(id, data, layout, config)`` call.

    Returns
    -------
    dict
        ``{"data": [...], "layout": {...}}``, what ``plotly.io.write_image`` takes.

    Raises
    ------
    InputError
        When the page holds no plotly call that parses.
    """
    text = Path(path).read_text(errors="replace")
    at = text.find(_PLOTLY_CALL)
    if at < 0:
        raise InputError(f"{path}: not a plotly page (no {_PLOTLY_CALL.rstrip('(')} call)")
    decoder = json.JSONDecoder()
    i = at + len(_PLOTLY_CALL)
    args = []
    try:
        for _ in range(3):  # the div id, the data, the layout
            while text[i] in " \t\r\n,":
                i += 1
            value, i = decoder.raw_decode(text, i)
            args.append(value)
    except (ValueError, IndexError):
        raise InputError(f"{path}: the plotly figure in it does not parse") from None
    return {"data": args[1], "layout": args[2]}


def find_chromium(chromium: str | os.PathLike[str] | None = None) -> str:
    """Return the chromium to print with: ``chromium``, else ``$BROWSER_PATH``, else on PATH.

    Raises
    ------
    DataNotFound
        When there is none (Debian: ``apt-get install chromium``, part of ``make debian``).
    """
    if chromium is not None:
        if shutil.which(str(chromium)) is None:
            raise DataNotFound(f"{chromium}: no such chromium executable")
        return str(chromium)
    env = os.environ.get("BROWSER_PATH")
    if env and shutil.which(env):
        return env
    for exe in CHROMIUM_NAMES:
        found = shutil.which(exe)
        if found:
            return found
    raise DataNotFound("chromium not found (it prints report.pdf and exports plotly figures): "
                       "install Debian's chromium, e.g. make debian")


def export_plotly(pages: Sequence[tuple[Path, Path]], chromium: str,
                  formats: Sequence[str] = FIGURE_FORMATS) -> None:
    """Export plotly pages as static figures with plotly's ``write_image`` (kaleido, offline).

    One kaleido browser (Debian's chromium through ``BROWSER_PATH``) serves every figure.

    Parameters
    ----------
    pages : sequence of (path, path)
        (plotly HTML page, output path without suffix) pairs.
    chromium : str
        The chromium executable kaleido drives.
    formats : sequence of str
        Formats written for each page.
    """
    if not pages:
        return
    os.environ.setdefault("BROWSER_PATH", chromium)
    import kaleido
    import plotly.io as pio

    kaleido.start_sync_server(silence_warnings=True)
    try:
        for page, stem in pages:
            fig = plotly_figure(page)
            for fmt in formats:
                try:
                    with warnings.catch_warnings():
                        # plotly hands kaleido options to the shared server too, which says so
                        warnings.filterwarnings("ignore", message="The kopts argument is ignored")
                        pio.write_image(fig, stem.with_suffix(f".{fmt}"), format=fmt)
                except Exception as exc:  # kaleido's own errors: one line naming the figure
                    why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise OverheadError(f"{page}: static {fmt} export failed: {why}") from exc
    finally:
        kaleido.stop_sync_server(silence_warnings=True)


def print_pdf(page: str | os.PathLike[str], pdf: str | os.PathLike[str], chromium: str, *,
              timeout: float = PDF_TIMEOUT) -> int:
    """Print an HTML page to PDF with headless chromium; return the PDF's page count.

    Chromium runs in its own process group with a private profile folder, and the whole group
    is killed if it takes longer than ``timeout`` seconds.

    Parameters
    ----------
    page : path
        The HTML file.
    pdf : path
        The PDF written.
    chromium : str
        The chromium executable.
    timeout : float
        Seconds allowed.

    Returns
    -------
    int
        Pages in the PDF (at least 1).

    Raises
    ------
    OverheadError
        When chromium fails, times out or writes no PDF (the message says which, and the end of
        its output).
    """
    page, pdf = Path(page).resolve(), Path(pdf).resolve()
    pdf.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="overhead-chromium-") as profile:
        argv = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-extensions", "--no-pdf-header-footer",
                f"--user-data-dir={profile}", f"--print-to-pdf={pdf}", page.as_uri()]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True, text=True, errors="replace")
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise OverheadError(f"{page}: chromium did not print it within {timeout:g} s") from None
        finally:
            if proc.poll() is None:  # pragma: no cover (only on an exception above)
                os.killpg(proc.pid, signal.SIGKILL)
    tail = " / ".join(line for line in out.strip().splitlines()[-2:])
    if proc.returncode != 0 or not pdf.is_file() or pdf.stat().st_size == 0:
        raise OverheadError(f"{page}: chromium exited with status {proc.returncode} and no PDF: "
                            f"{tail[:300]}")
    pages = pdf_pages(pdf)
    if pages < 1:
        raise OverheadError(f"{pdf}: chromium wrote a PDF without pages")
    return pages


def pdf_pages(path: str | os.PathLike[str]) -> int:
    """Return the number of pages of a PDF chromium (Skia) wrote; 0 when it is not a PDF.

    Skia writes page objects uncompressed, so the ``/Type /Page`` dictionaries are counted.
    """
    data = Path(path).read_bytes()
    if not data.startswith(b"%PDF-"):
        return 0
    return len(re.findall(rb"/Type\s*/Page(?![A-Za-z])", data))


__all__ = ["CHROMIUM_NAMES", "FIGURE_FORMATS", "PDF_TIMEOUT", "export_plotly", "find_chromium",
           "is_plotly_page", "pdf_pages", "plotly_figure", "print_pdf"]
