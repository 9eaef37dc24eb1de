"""`overhead publish`: a bundle per study (figures, tables, report HTML and PDF, manifest, zip).

The study published here is made from real data: the authors' STREAM results ingested by the
session fixture ``ibm_tidy``, drawn with overhead.plots (a matplotlib figure written as PNG, SVG
and PDF, and a plotly figure written only as HTML, which publish must export statically), a
table of them as CSV, and a report page linking those files by relative path.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from conftest import unavailable
from typer.testing import CliRunner

from overhead import publish
from overhead.cli import app
from overhead.errors import DataNotFound, InputError
from overhead.paths import REFERENCE_DATA, ROOT

OVERHEAD = [sys.executable, "-m", "overhead.cli"]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def chromium() -> str:
    """Debian's chromium (prints report.pdf, drives kaleido): required in CI, else skipped."""
    try:
        return publish.find_chromium()
    except DataNotFound as exc:
        unavailable(f"{exc} (chromium is part of make debian)")


def _make_study(folder: Path, tidy: Path) -> None:
    """Write a small real study: STREAM bandwidth per environment from the authors' data."""
    import matplotlib.pyplot as plt
    import plotly.express as px

    from overhead import plots
    from overhead import tidy as tidy_tables
    from overhead.stats.tables import to_markdown

    rows = tidy_tables.load(tidy, "stream", metrics=["bandwidth"])
    table = (rows.groupby(["p_function", "environment"] if "p_function" in rows else ["environment"])
             ["value"].agg(["mean", "std", "count"]).reset_index())
    table["mean"] = table["mean"] / 1e9
    table["std"] = table["std"] / 1e9
    table = table.rename(columns={"mean": "GB/s", "std": "sd", "count": "n"})
    folder.mkdir(parents=True)
    table.to_csv(folder / "stream.csv", index=False)
    by_env = rows.groupby("environment")["value"].mean() / 1e9
    plots.theme()
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(by_env.index, by_env.values, color=[plots.colour(e) for e in by_env.index])
    ax.set_ylabel("STREAM bandwidth (GB/s)")
    plots.save(fig, folder, "stream")
    plt.close(fig)
    pfig = px.bar(x=list(by_env.index), y=list(by_env.values),
                  labels={"x": "environment", "y": "GB/s"}, title="STREAM (authors' data)")
    plots.save_html(pfig, folder, "stream_plotly")  # plotly only: no static sibling
    (folder / "summary.md").write_text(to_markdown(by_env.to_frame("GB/s")))
    (folder / "report.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>STREAM, published</title></head>"
        "<body><h1>STREAM</h1><img alt='stream' src='stream.png'>"
        "<p><a href='stream.svg'>svg</a> <a href=\"stream.pdf\">pdf</a> "
        "<a href='stream.csv'>csv</a> <a href='stream_plotly.html'>interactive</a> "
        "<a href='gone.pdf'>a file the notebook never wrote</a> "
        "<a href='https://example.org/x.pdf'>elsewhere</a> <a href='#top'>top</a></p>"
        + (folder / "summary.md").read_text().replace("\n", "<br>") + "</body></html>")


@pytest.fixture(scope="module")
def tree(ibm_tidy, tmp_path_factory) -> Path:
    """figures/{rc25482, local-nothing}, index.html, README.md; data/{tidy/ibm, reference}."""
    root = tmp_path_factory.mktemp("publish")
    (root / "data" / "tidy").mkdir(parents=True)
    (root / "data" / "tidy" / "ibm").symlink_to(ibm_tidy)
    (root / "data" / "reference").mkdir()
    shutil.copy(REFERENCE_DATA / "rc25482.csv", root / "data" / "reference")
    figures = root / "figures"
    _make_study(figures / "rc25482", ibm_tidy)
    # a campaign study whose tidy and raw data are nowhere
    shutil.copytree(figures / "rc25482", figures / "local-nothing")
    (figures / "index.html").write_text("<html>index</html>")
    (figures / "README.md").write_text("not a study\n")
    return root


def _publish(tree: Path, *args: str):
    r = CliRunner().invoke(app, ["publish", "--figures", str(tree / "figures"), "--data",
                                 str(tree / "data"), "--out", str(tree / "dist"), *args])
    assert r.exit_code == 0, r.output + repr(r.exception)
    return r


@pytest.fixture(scope="module")
def dist(tree, chromium) -> Path:
    r = _publish(tree)
    assert "rc25482" in r.output and "local-nothing" in r.output
    return tree / "dist"


def test_index_and_readme_are_not_studies(tree):
    studies = publish.find_studies(tree / "figures", data=tree / "data")
    assert [s.name for s in studies] == ["local-nothing", "rc25482"]
    kinds = {s.name: s.kind for s in studies}
    assert kinds == {"rc25482": "rc25482", "local-nothing": "campaign"}
    assert studies[1].tidy == tree / "data" / "tidy" / "ibm"


def test_bundle_has_every_figure_as_pdf_and_svg_and_every_table_as_latex_and_markdown(tree, dist):
    b, src = dist / "rc25482", tree / "figures" / "rc25482"
    for fmt in ("pdf", "svg"):  # the notebook's own files, copied
        assert (b / "figures" / f"stream.{fmt}").read_bytes() == (src / f"stream.{fmt}").read_bytes()
    # the plotly-only figure, exported by kaleido through chromium
    assert (b / "figures" / "stream_plotly.pdf").read_bytes().startswith(b"%PDF-")
    assert publish.pdf_pages(b / "figures" / "stream_plotly.pdf") == 1
    svg = (b / "figures" / "stream_plotly.svg").read_text()
    assert "<svg" in svg and "STREAM (authors" in svg
    # tables: the CSV converted, the Markdown copied (no CSV, so no LaTeX: said in the manifest)
    md = (b / "tables" / "stream.md").read_text()
    tex = (b / "tables" / "stream.tex").read_text()
    env_col = pd.read_csv(src / "stream.csv").columns[0]
    assert md.startswith(f"| {env_col} |") and "GB/s" in md
    assert "\\begin{tabular}" in tex and "\\toprule" in tex and "GB/s" in tex
    assert (b / "tables" / "stream.csv").read_bytes() == (src / "stream.csv").read_bytes()
    assert (b / "tables" / "summary.md").read_bytes() == (src / "summary.md").read_bytes()
    m = json.loads((b / "manifest.json").read_text())
    assert m["contents"]["figures"] == ["stream", "stream_plotly"]
    assert m["contents"]["exported_from_plotly"] == ["stream_plotly"]
    assert "table summary: no CSV to make its tex from" in m["not_found"]


def test_report_links_point_into_the_bundle_and_the_pdf_has_pages(dist):
    b = dist / "rc25482"
    page = (b / "report.html").read_text()
    for link in ("src='figures/stream.png'", "href='figures/stream.svg'",
                 'href="figures/stream.pdf"', "href='tables/stream.csv'",
                 "href='figures/stream_plotly.html'", "href='https://example.org/x.pdf'",
                 "href='#top'"):
        assert link in page, link
    # what the page links is in the bundle, the plotly page with the plotly.js it loads
    for rel in ("figures/stream.png", "figures/stream_plotly.html", "figures/plotly.min.js"):
        assert (b / rel).is_file(), rel
    m = json.loads((b / "manifest.json").read_text())
    assert any("gone.pdf" in w for w in m["not_found"])
    pdf = (b / "report.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and publish.pdf_pages(b / "report.pdf") >= 1
    assert m["contents"]["report_pdf_pages"] == publish.pdf_pages(b / "report.pdf")


def test_manifest_lists_every_file_with_its_hash_and_the_inputs_as_ingested(dist, ibm_tidy, ibm):
    b = dist / "rc25482"
    m = json.loads((b / "manifest.json").read_text())
    on_disk = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    assert {f["path"] for f in m["files"]} == on_disk - {"manifest.json"}
    for f in m["files"]:
        p = b / f["path"]
        assert f["sha256"] == _sha(p) and f["bytes"] == p.stat().st_size, f["path"]
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    assert m["git"]["sha"] == head and isinstance(m["git"]["dirty"], bool)
    assert m["created_utc"].endswith("Z") and m["study"]["kind"] == "rc25482"
    assert m["study"]["title"] == "STREAM, published"
    # the authors' raw files: the hashes the ingest recorded, checked again on the tree itself
    prov = pd.read_parquet(ibm_tidy / "provenance.parquet")
    recorded = dict(zip(prov["source_file"], prov["source_sha256"], strict=True))
    inputs = m["data"]["inputs"]
    assert {f["path"]: f["sha256"] for f in inputs["files"]} == recorded
    assert inputs["verified_now"] == inputs["count"] == len(recorded)
    first = inputs["files"][0]
    assert first["sha256"] == _sha(ibm / first["path"])
    assert m["data"]["reference"]["sha256"] == _sha(REFERENCE_DATA / "rc25482.csv")
    tools = {(t["tool"], t["version"]) for t in m["tools"]}
    assert ("sysbench", "0.4.12") in tools and ("stream", None) in tools
    for name in ("python", "overhead", "pandas", "matplotlib", "plotly", "kaleido"):
        assert m["software"][name], name
    assert m["software"]["chromium"].startswith(("Chromium", "Google Chrome"))


def test_zip_holds_exactly_the_bundle_folder(dist):
    b = dist / "rc25482"
    with zipfile.ZipFile(dist / "rc25482.zip") as z:
        zipped = {n.removeprefix("rc25482/"): z.read(n) for n in z.namelist()}
    on_disk = {p.relative_to(b).as_posix(): p.read_bytes() for p in b.rglob("*") if p.is_file()}
    assert zipped == on_disk


def test_a_study_without_its_data_publishes_and_says_what_was_not_found(dist):
    m = json.loads((dist / "local-nothing" / "manifest.json").read_text())
    assert m["study"]["kind"] == "campaign" and m["study"]["campaign"] == "local-nothing"
    text = " | ".join(m["not_found"])
    for what in ("tidy/local-nothing: the tidy data", "raw/local-nothing: the campaign's raw tree",
                 "campaign local-nothing: its YAML"):
        assert what in text, what
    inputs = m["data"]["inputs"]
    assert inputs["files"] == [] and inputs["count"] == 0  # no hash made up
    assert "sha256" not in inputs["campaign_file"] and m["tools"] == []
    assert (dist / "local-nothing" / "report.pdf").is_file() and (dist / "local-nothing.zip").is_file()


def test_running_again_replaces_the_bundle(tree, dist):
    stray = dist / "rc25482" / "figures" / "left-over.pdf"
    stray.write_bytes(b"%PDF-1.4 old\n")
    _publish(tree, "--only", "rc25482")
    assert not stray.exists()
    with zipfile.ZipFile(dist / "rc25482.zip") as z:
        assert "rc25482/figures/left-over.pdf" not in z.namelist()
    assert not [p for p in dist.iterdir() if p.name.startswith(".")]  # no work folder left


@pytest.mark.parametrize("content", [{}, {"notes.txt": "x"}, {"report.html": "<html></html>"}])
def test_a_folder_with_nothing_to_publish_is_one_line_naming_it(tmp_path, content):
    bad = tmp_path / "figures" / "half-done"
    bad.mkdir(parents=True)
    for name, text in content.items():
        (bad / name).write_text(text)
    r = subprocess.run([*OVERHEAD, "publish", "--figures", str(tmp_path / "figures"),
                        "--data", str(tmp_path), "--out", str(tmp_path / "dist")],
                       capture_output=True, text=True)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert str(bad) in r.stderr and "nothing to publish" in r.stderr
    assert not (tmp_path / "dist").exists()


def test_the_exploration_exports_are_not_a_study(tree):
    explore = tree / "figures" / "explore"
    explore.mkdir(exist_ok=True)
    (explore / "ibm-linpack-flop_rate.csv").write_text("environment,mean\nNative,1\n")
    try:
        names = [s.folder.name for s in publish.find_studies(tree / "figures", data=tree / "data")]
        assert "explore" not in names and names
    finally:
        shutil.rmtree(explore)


def test_only_names_an_unknown_study(tree):
    with pytest.raises(InputError, match="no study nope.*there are: local-nothing, rc25482"):
        publish.find_studies(tree / "figures", data=tree / "data", only=["nope"])


def test_a_csv_table_becomes_markdown_and_latex(tmp_path):
    """The authors' reference values file (real, committed) as a table: empty cells are dashes."""
    src = tmp_path / "rc25482.csv"
    shutil.copy(REFERENCE_DATA / "rc25482.csv", src)
    df = pd.read_csv(src)
    made = publish.table_formats(src, "rc25482")
    lines = made["md"].splitlines()
    assert len(lines) == len(df) + 2 and lines[0].startswith(f"| {df.columns[0]} |")
    if df.isna().any().any():
        assert "\u2014" in made["md"] and "---" in made["tex"]
    assert made["tex"].startswith("% rc25482: from rc25482.csv")
    assert made["tex"].count("\\\\\n") == len(df) + 1


def _media_boxes(pdf: Path) -> set[tuple[int, int]]:
    import re

    return {(round(float(w)), round(float(h))) for w, h in
            re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf.read_bytes())}


def test_report_pdf_is_a4_unless_letter_is_asked(tmp_path, chromium):
    from overhead import export, pages

    folder = tmp_path / "figures" / "paper-size"
    frame = pd.DataFrame({"environment": ["Native", "Docker"], "GB/s": [41.27, 41.20]})
    export.write_table(frame, folder, "t")
    pages.Page("paper size").table(frame, index=False).write(folder / "report.html")
    st = publish.study(folder, data=tmp_path / "data")
    a4 = publish.publish(st, tmp_path / "a4", chromium=chromium)
    letter = publish.publish(st, tmp_path / "letter", chromium=chromium, paper="letter")
    assert _media_boxes(a4.folder / "report.pdf") == {(595, 842)}
    assert _media_boxes(letter.folder / "report.pdf") == {(612, 792)}
    # the tables the exporter wrote are copied, not made again
    assert (a4.folder / "tables" / "t.md").read_bytes() == (folder / "t.md").read_bytes()
    with pytest.raises(InputError, match="paper size 'A3'"):
        publish.publish(st, tmp_path / "a3", chromium=chromium, paper="A3")
