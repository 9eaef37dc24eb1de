"""Assemble every table and figure of the RC25482 rebuild into one self-contained HTML page.

The section notebooks write their outputs with fixed names into the output folder; this module
reads them back (PNG figures embedded as data URIs, tables as the exporter rendered them, else
from their CSV files), adds the short text for each, and writes ``report.html`` with the page
builder every report uses (:class:`overhead.pages.Page`). Nothing is recomputed here.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from overhead import studies
from overhead.browser import is_plotly_page
from overhead.export import labelled
from overhead.names import AUTHORS_DATASET, AUTHORS_STUDY
from overhead.pages import Page
from overhead.paths import REFERENCE_DATA, TIDY
from overhead.rc25482.wording import word_list


@dataclass(frozen=True)
class Item:
    """One table or figure of the paper.

    Attributes
    ----------
    stem : str
        The output files' stem.
    title : str
        The title.
    text : str
        The text shown with it.
    kind : str
        "figure" or "table".
    """

    stem: str
    title: str
    text: str
    kind: str = "figure"  # or "table"


SECTIONS: tuple[tuple[str, str, tuple[Item, ...]], ...] = (
    ("Compute and memory", "01_table1_compute_memory", (
        Item("table1", "Table I: results for PXZ, Linpack, STREAM and RandomAccess",
             "Mean, sample SD and 95% CI over the trials of each environment (two sockets), with the "
             "difference from native, its verdict (equivalent within the equivalence margin of "
             "data/reference/margins.yml, slower or faster, or inconclusive) with the 95% interval of the "
             "difference it was decided on, and the authors' spreadsheet value beside each cell. PXZ has no "
             "data anywhere in the authors' repository; the paper only says KVM is 22% slower. The "
             "authors' STREAM SDs are population SDs, Linpack and RandomAccess sample SDs. STREAM and "
             "RandomAccess 'KVM' runs come from an untuned VM. The RandomAccess files named "
             "*.single-socket.localalloc.log hold the two-socket runs (their headers say so).",
             kind="table"),
        Item("table2", "Table II: STREAM kernels",
             "Definitions of the four kernels (bytes and floating-point operations per iteration), "
             "from the STREAM benchmark itself, not measurements.", kind="table"),
    )),
    ("Network", "02_network", (
        Item("fig01", "Fig 1: network configurations",
             "Native, Docker NAT (veth, bridge, iptables), Docker host networking and KVM "
             "(virtio-net with vhost), drawn from the paper's description."),
        Item("fig02", "Fig 2: TCP bulk transfer (nuttcp) goodput",
             "One hand-entered value per bar in the authors' spreadsheet (n = 1: no confidence "
             "interval is possible). The paper's CPU cycles per byte panel is not in the data."),
        Item("fig03", "Fig 3: TCP_RR and UDP_RR round-trip latency (netperf)",
             "Latency = 1e6 / transactions per second, from the authors' spreadsheet (n = 1). There is "
             "no Docker NAT value in the data."),
    )),
    ("Block I/O", "03_block_io", (
        Item("fig04", "Fig 4: storage configurations", "The storage paths compared."),
        Item("fig05", "Fig 5: sequential I/O throughput",
             "One fio run per environment. Error bars are fio's per-interval bandwidth SD inside "
             "that run, not run-to-run variation. The spreadsheet's KVM values come from a run that is "
             "not committed; the committed vm.log gives lower values; both are shown."),
        Item("fig06", "Fig 6: random I/O throughput (IOPS)",
             "Sum over the 8 jobs of each 16x8 test; committed logs beside the spreadsheet values."),
        Item("fig07", "Fig 7: random read latency CDF",
             "From fio's completion-latency percentiles of random-read-16 (4 KiB, QD16)."),
    )),
    ("Redis", "04_redis", (
        Item("fig08", "Fig 8: Redis throughput vs client connections",
             "Mean over runs with 95% CI; right panel: the ratio to native with the 95% interval its "
             "verdict is decided on (markers: filled, a difference; hollow, equivalent within the margin; "
             "pale, inconclusive). The committed workload is plain redis-benchmark, not the "
             "paper's pipelined 50/50 GET/SET load over 150M keys: the shapes match the text, the "
             "values do not."),
        Item("fig09", "Fig 9: Redis latency vs client connections",
             "Latency implied by Little's law (R = N / X, closed loop), since redis-benchmark 2.x only "
             "prints whole-millisecond buckets."),
        Item("redis_littles", "Little's-law analysis: added latency and saturation", "", kind="table"),
    )),
    ("MySQL", "05_mysql", (
        Item("table3", "Table III: MySQL configurations", "", kind="table"),
        Item("fig10", "Fig 10: MySQL throughput vs concurrency, and loss vs native",
             "Mean of 10 runs per point with 95% CI, and the loss against native with the 95% interval "
             "its verdict is decided on (markers as in Fig 8). All 1,489 sysbench runs in the repository are "
             "read-only ('Doing read-only test'), though the paper describes read/write transactions."),
        Item("fig11", "Fig 11: MySQL throughput vs CPU utilisation",
             "CPU utilisation (100 - idle) from dstat, segmented into the 150 sysbench runs of each "
             "configuration. dstat ran on the host in every configuration, KVM included: KVM's CPU is "
             "the host's view (guest kernel time appears as user time). The 'Docker NAT volume' "
             "folder (docker-nofs) shows host-network packet counts (16 per transaction, like "
             "native), not NAT's 48: its label follows the authors' plots but is doubtful."),
        Item("fig12", "Fig 12: MySQL latency vs concurrency",
             "Per-request mean latency; Little's law N = X R holds for these points."),
        Item("fig13", "Fig 13: MySQL throughput vs latency", ""),
    )),
)


def _table(out: Path, stem: str, page: Page) -> None:
    """Add a table: its shown form (``<stem>.html``, the exporter's) if written, else its CSV."""
    rendered = out / f"{stem}.html"
    if rendered.is_file() and not is_plotly_page(rendered):
        page.raw(rendered.read_text())
        return
    page.table(labelled(pd.read_csv(out / f"{stem}.csv")))


def _git_sha() -> str:
    """Return the repository's commit, or 'unknown' outside a git checkout."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


#: The tables and columns in which each section notebook sets the paper's published values
#: beside its own (empty when it ran with ``compare_published=False``; table1's other
#: ``published_*`` columns are not all of them published values). Block I/O compares with the
#: authors' spreadsheet, which is their data, not a published value.
PUBLISHED_IN = {"01_table1_compute_memory": (("table1", "published_mean"),),
                "02_network": (("fig02", "published_gbps"), ("fig03", "published_latency_us")),
                "04_redis": (("fig09", "published_latency_us"), ("redis_littles", "published")),
                "05_mysql": (("mysql_claims", "paper_value"),)}


def compared_sections(out: str | os.PathLike[str]) -> dict[str, bool]:
    """Say, per section notebook, whether its outputs in ``out`` hold published values.

    Read from each section's published-value columns (:data:`PUBLISHED_IN`), so the report
    says what each section notebook did, whatever the report notebook's own
    ``compare_published`` parameter says; a table with the column and no value in it says its
    notebook ran without them.

    Parameters
    ----------
    out : str or path
        The folder the section notebooks wrote to.

    Returns
    -------
    dict
        Notebook name -> True (a published value is in its tables) or False (the published
        columns are there and empty); a notebook whose tables are missing is left out.
    """
    out = Path(out)
    seen: dict[str, bool] = {}
    for notebook, columns in PUBLISHED_IN.items():
        for stem, column in columns:
            csv = out / f"{stem}.csv"
            if not csv.is_file():
                continue
            frame = pd.read_csv(csv)
            if column in frame:
                seen[notebook] = seen.get(notebook, False) or bool(frame[column].notna().any())
    return seen


def _comparison_words(seen: dict[str, bool], fallback: bool) -> str:
    """Say which sections set published values beside their own (see :func:`compared_sections`)."""
    names = {notebook: section for section, notebook, _ in SECTIONS}

    yes = [names[n] for n, v in seen.items() if v]
    no = [names[n] for n, v in seen.items() if not v]
    if not seen:
        return ("Published values stand beside the reproduced ones." if fallback else
                "No comparison with published values was made (compare_published=False).")
    if not no:
        return "Published values stand beside the reproduced ones."
    if not yes:
        return ("No comparison with published values was made: every section notebook ran with "
                "compare_published=False.")
    return (f"Published values stand beside the reproduced ones in {word_list(yes)}; the "
            f"{word_list(no)} notebook{'s' if len(no) > 1 else ''} ran with compare_published=False, "
            "so no published value is shown there.")


def missing(out: str | os.PathLike[str]) -> list[str]:
    """List the items whose output files are not in ``out`` (figure PNG or table CSV)."""
    out = Path(out)
    gone = []
    for _, _, items in SECTIONS:
        for item in items:
            name = f"{item.stem}.png" if item.kind == "figure" else f"{item.stem}.csv"
            if not (out / name).is_file():
                gone.append(name)
    return gone


def build(out: str | os.PathLike[str], *, compared: bool = True,
          tidy: str | os.PathLike[str] | None = None) -> Path:
    """Write ``out/report.html`` from the outputs already in ``out``.

    Missing outputs are listed at the top rather than failing, so a partial run still reports.

    Parameters
    ----------
    out : str or path
        The folder the section notebooks wrote to.
    compared : bool
        Whether the notebooks compared with published values: said at the top of the page only
        when no section's tables show it (:func:`compared_sections` reads what each section
        notebook did from its outputs), and whether the published values are registered.
    tidy : str or path, optional
        The tidy folder the notebooks read (default ``data/tidy/ibm``), registered with the
        study (:mod:`overhead.studies`).

    Returns
    -------
    pathlib.Path
        The path of ``report.html``.
    """
    out = Path(out)
    seen = compared_sections(out)
    page = Page("RC25482 rebuilt from the authors' raw data",
                heading="An Updated Performance Comparison of Virtual Machines and Linux Containers "
                        "(IBM RC25482, 2014), rebuilt")
    page.text("Every table and figure below was recomputed from the authors' raw logs "
              "(thewmf/kvm-docker-comparison) by the overhead notebooks "
              f"(commit {_git_sha()}, {dt.date.today().isoformat()}). "
              + _comparison_words(seen, compared),
              cls="note")
    gone = missing(out)
    if gone:
        page.text(f"Missing outputs: {', '.join(gone)}", cls="missing")
    for section, notebook, items in SECTIONS:
        page.heading(section)
        page.raw(f"<p class='note'>notebook <code>notebooks/{notebook}.ipynb</code></p>")
        for item in items:
            page.heading(item.title, 3)
            if item.text:
                page.text(item.text)
            png, csv = out / f"{item.stem}.png", out / f"{item.stem}.csv"
            if item.kind == "figure" and png.is_file():
                page.figure(png, links=("svg", "pdf", "csv", "html"))
            elif item.kind == "table" and csv.is_file():
                _table(out, item.stem, page)
    path = page.write(out / "report.html")
    reference = REFERENCE_DATA / f"{AUTHORS_STUDY}.csv"
    studies.register(out, kind="rc25482", title=page.title, tidy=tidy or TIDY / AUTHORS_DATASET,
                     reference=reference if (any(seen.values()) if seen else compared) and reference.is_file()
                     else None)
    return path
