"""Publishing bundles: one folder and one zip per study under ``figures/``.

A study folder is what the notebooks wrote: ``figures/rc25482/`` (the paper rebuilt from the
authors' raw data, tidy in ``data/tidy/ibm``), ``figures/<campaign>/`` (a campaign measured
here, tidy in ``data/tidy/<campaign>``, raw in ``data/raw/<campaign>``) and the seed studies
``figures/startup``, ``figures/fsync``, ``figures/sysbench_suite`` (campaigns ``startup``,
``fsync``, ``sysbench-suite``: a folder's campaign is the one of the same name, ``_`` read as
``-``). :func:`publish` turns one into ``<out>/<name>/``:

``figures/``
    every figure as PDF and SVG (the notebooks' files copied; a plotly-only figure, an HTML
    page without a static sibling, exported with plotly's ``write_image``: kaleido driving
    Debian's chromium, offline);
``tables/``
    every table as LaTeX and Markdown beside its CSV: the files the exporter wrote
    (:func:`overhead.export.write_table`) copied as they are; only a table that has a CSV alone
    (written before the exporter, or by hand) gets them made from it;
``report.html``, ``report.pdf``
    the study's page, its links to sibling files pointed at their place in the bundle (files it
    links that the bundle has no place for, such as a plotly page and its ``plotly.min.js``,
    brought along), and that page printed by headless chromium;
``manifest.json``
    the checkout's git SHA (and whether its work tree is dirty), the UTC date, the study, the
    SHA-256 of its inputs (the authors' raw files as the ingest recorded them, or every file of
    the campaign's raw tree and its YAML), the versions of the tools that measured and of the
    software that drew and printed, and every file of the bundle with its SHA-256 and size. What
    could not be found is said under ``not_found``; no hash is ever made up.

and zips that folder into ``<out>/<name>.zip``. A bundle is built beside the old one and then
swapped in, so running again replaces it cleanly.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from overhead import studies
from overhead.browser import (
    PDF_TIMEOUT,
    export_plotly,
    find_chromium,
    is_plotly_page,
    pdf_pages,
    plotly_figure,
    print_pdf,
)
from overhead.errors import InputError, OverheadError
from overhead.export import formats_from_csv
from overhead.ingest import file_sha256
from overhead.names import AUTHORS_DATASET, AUTHORS_STUDY
from overhead.paths import DATA, ROOT

#: Folders of figures/ that are not studies: the exploration notebook's exported views
#: (figures/explore/, each a figure and its CSV, no report) are the user's own to place.
NOT_STUDIES = ("explore",)
#: Static figure formats every bundle carries.
FIGURE_FORMATS = ("pdf", "svg")
#: Paper sizes report.pdf can be printed on (CSS @page size names).
PAPER = {"a4": "A4", "letter": "letter"}
#: Python distributions whose versions go into the manifest.
SOFTWARE = ("overhead", "pandas", "numpy", "matplotlib", "seaborn", "plotly", "kaleido")

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_LINK = re.compile(r"""(?P<attr>\b(?:src|href)\s*=\s*)(?P<q>["'])(?P<url>[^"'#?]*)(?P<rest>[^"']*)(?P=q)""",
                   re.IGNORECASE)
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass
class Study:
    """One study folder under ``figures/`` and where its data is.

    Attributes
    ----------
    name : str
        The bundle's name (the folder's name under ``figures/``).
    kind : str
        ``rc25482`` (the authors' raw data), ``seed`` (a seed study: its published values are
        ``data/reference/<name>.csv``), ``campaign`` (a campaign measured here) or
        ``comparison`` (campaigns compared, ``campaign`` naming them comma-separated).
    folder : pathlib.Path
        The folder the notebooks wrote.
    tidy : pathlib.Path or None
        Its tidy folder (``data/tidy/<campaign>``, ``data/tidy/ibm``), present or not.
    raw : pathlib.Path or None
        The campaign's raw tree (``data/raw/<campaign>``), present or not; None for rc25482.
    campaign : str or None
        The campaign's name.
    campaign_file : pathlib.Path or None
        The campaign's YAML, when found.
    reference : pathlib.Path or None
        The study's published values (``data/reference/<name>.csv``), when present.
    data : pathlib.Path
        The data folder paths in the manifest are written relative to.
    """

    name: str
    kind: str
    folder: Path
    tidy: Path | None = None
    raw: Path | None = None
    campaign: str | None = None
    campaign_file: Path | None = None
    reference: Path | None = None
    data: Path = DATA


@dataclass
class Bundle:
    """What :func:`publish` wrote for one study."""

    name: str
    folder: Path
    zip: Path
    files: int
    bytes: int
    seconds: float
    pdf_pages: int
    not_found: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """Return one line: name, zip, file count, size, time, and how much was not found."""
        extra = f"; not found: {len(self.not_found)} (see manifest.json)" if self.not_found else ""
        return (f"{self.name:<16} {self.zip}  {self.files} files, {self.bytes / 1e6:.1f} MB, "
                f"report.pdf {self.pdf_pages} pages, {self.seconds:.1f} s{extra}")


# ---------------------------------------------------------------------------------------------
# which folders are studies, and where their data is


def _norm(name: str) -> str:
    """Return a name to compare loosely: ``sysbench_suite`` is ``sysbench-suite``."""
    return name.replace("_", "-").lower()


def _campaign_names(campaigns: Path) -> dict[str, Path]:
    """Return campaign name -> YAML file for every ``*.yml`` in ``campaigns`` (name field)."""
    import yaml

    found: dict[str, Path] = {}
    for path in sorted(campaigns.glob("*.y*ml")) if campaigns.is_dir() else []:
        try:
            data = yaml.safe_load(path.read_text())
        except (OSError, yaml.YAMLError):
            continue
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            found.setdefault(data["name"], path)
    return found


def _match(name: str, candidates: Iterable[str]) -> str | None:
    """Return the candidate equal to ``name``, else the one equal after :func:`_norm`."""
    candidates = list(candidates)
    if name in candidates:
        return name
    loose = sorted({c for c in candidates if _norm(c) == _norm(name)})
    return loose[0] if len(loose) == 1 else None


def _publishable(folder: Path) -> str | None:
    """Return why ``folder`` cannot be published, or None when it can."""
    if not (folder / "report.html").is_file():
        return f"{folder}: nothing to publish: no report.html (run the study's notebook first)"
    if not any(p.suffix in (".pdf", ".svg", ".png", ".csv", ".md", ".tex")
               or is_plotly_page(p) for p in folder.iterdir() if p.is_file()):
        return f"{folder}: nothing to publish: report.html but no figure or table beside it"
    return None


def study(folder: str | os.PathLike[str], *, name: str | None = None, kind: str | None = None,
          campaign: str | None = None, data: str | os.PathLike[str] | None = None,
          tidy: str | os.PathLike[str] | None = None,
          raw: str | os.PathLike[str] | None = None,
          campaign_file: str | os.PathLike[str] | None = None) -> Study:
    """Describe one study folder, finding its data as :func:`find_studies` does.

    Parameters
    ----------
    folder : path
        The folder the notebooks wrote (``figures/<name>``).
    name : str, optional
        The bundle's name (default: the folder's name).
    kind : str, optional
        ``rc25482``, ``seed`` or ``campaign`` (default: the folder's registration,
        ``study.json`` of :mod:`overhead.studies`; without one, from the name, see :class:`Study`).
    campaign : str, optional
        The campaign's name (default: the registration's, else the campaign, tidy or raw folder
        named like the study).
    data : path, optional
        The data folder holding ``campaigns/``, ``reference/``, ``tidy/`` and ``raw/``
        (default ``data``).
    tidy, raw : path, optional
        The folders of tidy and raw trees (default ``<data>/tidy``, ``<data>/raw``).
    campaign_file : path, optional
        The campaign's YAML (default: the file in ``<data>/campaigns`` whose ``name`` is the
        campaign's, else the copy in its raw tree).

    Returns
    -------
    Study

    Raises
    ------
    InputError
        When the folder does not exist or holds nothing to publish (the message names it).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such study folder")
    why = _publishable(folder)
    if why:
        raise InputError(why)
    data = Path(data) if data is not None else DATA
    tidy_root = Path(tidy) if tidy is not None else data / "tidy"
    raw_root = Path(raw) if raw is not None else data / "raw"
    name = name or folder.name
    reg = studies.read(folder)
    reference = data / "reference" / f"{name}.csv"
    if reg is not None:  # the study said what it is when its report was written
        kind = kind or reg.kind
        campaign = campaign or reg.campaign
        if reg.reference is not None and reg.reference.is_file():
            reference = reg.reference
    if kind is None:
        kind = ("rc25482" if name == AUTHORS_STUDY
                else "seed" if reference.is_file() else "campaign")
    registered_tidy = reg.tidy if reg is not None and tidy is None else None
    if kind == "rc25482":
        return Study(name, kind, folder, tidy=registered_tidy or tidy_root / AUTHORS_DATASET,
                     reference=reference if reference.is_file() else None, data=data)
    if kind == "comparison":  # several campaigns (study.json's campaign: "a,b"): each one's inputs
        return Study(name, kind, folder, tidy=None, raw=None, campaign=campaign, data=data)
    files = _campaign_names(data / "campaigns")
    if campaign is None:
        dirs = [p.name for root in (tidy_root, raw_root) if root.is_dir()
                for p in root.iterdir() if p.is_dir()]
        campaign = _match(name, [*files, *dirs]) or name
    if campaign_file is None:
        campaign_file = files.get(campaign)
        if campaign_file is None and (raw_root / campaign / "campaign.yml").is_file():
            campaign_file = raw_root / campaign / "campaign.yml"
    return Study(name, kind, folder, tidy=registered_tidy or tidy_root / campaign,
                 raw=raw_root / campaign,
                 campaign=campaign, campaign_file=Path(campaign_file) if campaign_file else None,
                 reference=reference if reference.is_file() else None, data=data)


def find_studies(figures: str | os.PathLike[str], *, data: str | os.PathLike[str] | None = None,
                 tidy: str | os.PathLike[str] | None = None,
                 raw: str | os.PathLike[str] | None = None,
                 only: Sequence[str] | None = None) -> list[Study]:
    """Return the studies of a figures folder: each sub-folder but those in :data:`NOT_STUDIES`.

    Files such as index.html are not studies either.

    Parameters
    ----------
    figures : path
        The folder holding one folder per study (default of the command: ``figures``).
    data, tidy, raw : path, optional
        As for :func:`study`.
    only : sequence of str, optional
        Publish only these studies (folder names).

    Returns
    -------
    list of Study
        In name order.

    Raises
    ------
    InputError
        When the folder is missing or has no study, when ``only`` names a study it lacks, or when
        a study folder holds nothing to publish (every such folder is named).
    """
    figures = Path(figures)
    if not figures.is_dir():
        raise InputError(f"{figures}: no such figures folder (run the notebooks: make demo)")
    folders = sorted(p for p in figures.iterdir() if p.is_dir()
                     and not p.name.startswith((".", "_")) and p.name not in NOT_STUDIES)
    if not folders:
        raise InputError(f"{figures}: no study folder in it (run the notebooks: make demo)")
    if only:
        names = [p.name for p in folders]
        unknown = [n for n in only if n not in names]
        if unknown:
            raise InputError(f"{figures}: no study {', '.join(unknown)} "
                             f"(there are: {', '.join(names)})")
        folders = [p for p in folders if p.name in only]
    bad = [why for p in folders if (why := _publishable(p))]
    if bad:
        raise InputError("; ".join(bad))
    return [study(p, data=data, tidy=tidy, raw=raw) for p in folders]


# ---------------------------------------------------------------------------------------------
# tables


def table_formats(csv: str | os.PathLike[str], name: str) -> dict[str, str]:
    """Return a CSV-only table as ``{"md": markdown, "tex": latex}`` (first column as row labels).

    For a table the exporter did not write (an older folder, a hand-made CSV): every table the
    project writes has its Markdown and LaTeX already (:func:`overhead.export.write_table`), and
    those are copied as they are.
    """
    return formats_from_csv(csv, name)


# ---------------------------------------------------------------------------------------------
# the report page


def _relative(url: str) -> bool:
    """Whether a link is to a file beside the page (no scheme, not absolute, not a fragment)."""
    return bool(url) and not _SCHEME.match(url) and not url.startswith(("/", "#"))


def _links(text: str) -> list[str]:
    """Return the relative src/href targets of an HTML page (without query or fragment)."""
    return [m["url"] for m in _LINK.finditer(text) if _relative(m["url"])]


def _bring(src: Path, folder: Path, dest: Path, placed: dict[str, str], missing: list[str],
           depth: int = 0) -> None:
    """Copy a linked page into ``dest`` (bundle-relative) and, one level down, what it links."""
    target = src.relative_to(folder)
    bundle_path = (Path("figures") / target).as_posix()
    placed[target.as_posix()] = bundle_path
    out = dest / bundle_path
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, out)
    if src.suffix == ".html" and depth == 0:
        for url in _links(src.read_text(errors="replace")):
            sub = (src.parent / url).resolve()
            key = sub.relative_to(folder.resolve()).as_posix() if sub.is_relative_to(
                folder.resolve()) else None
            if key is None or not sub.is_file():
                missing.append(f"{src.name} links {url}, which is not in {folder}")
            elif key not in placed or not (dest / "figures" / key).is_file():
                _bring(folder / key, folder, dest, placed, missing, depth + 1)


def bundle_report(folder: Path, dest: Path, placed: dict[str, str]) -> list[str]:
    """Write ``dest/report.html``: the study's page, its relative links pointing into the bundle.

    Parameters
    ----------
    folder : pathlib.Path
        The study folder.
    dest : pathlib.Path
        The bundle folder.
    placed : dict of str to str
        Study-relative path -> bundle-relative path of the files already in the bundle; files
        the page links that are not in it are copied under ``figures/`` and added.

    Returns
    -------
    list of str
        Links the bundle cannot satisfy (the file is missing or outside the study folder).
    """
    text = (folder / "report.html").read_text(errors="replace")
    missing: list[str] = []
    root = folder.resolve()
    for url in dict.fromkeys(_links(text)):
        src = (folder / url).resolve()
        key = src.relative_to(root).as_posix() if src.is_relative_to(root) else None
        if key in placed:
            continue
        if key is None or not src.is_file():
            missing.append(f"report.html links {url}, which is not in {folder}")
            continue
        _bring(src, folder, dest, placed, missing)

    def fix(m: re.Match) -> str:
        url = m["url"]
        if not _relative(url):
            return m[0]
        src = (folder / url).resolve()
        key = src.relative_to(root).as_posix() if src.is_relative_to(root) else None
        if key not in placed:
            return m[0]
        return f"{m['attr']}{m['q']}{html.escape(placed[key], quote=True)}{m['rest']}{m['q']}"

    (dest / "report.html").write_text(_LINK.sub(fix, text))
    return missing


def _title(folder: Path) -> str | None:
    """Return the ``<title>`` of a study's report.html."""
    head = (folder / "report.html").read_text(errors="replace")[:20000]
    m = re.search(r"<title>(.*?)</title>", head, re.IGNORECASE | re.DOTALL)
    return html.unescape(m[1]).strip() if m else None


# ---------------------------------------------------------------------------------------------
# the manifest


def _display(path: Path | None, study_: Study) -> str | None:
    """Return a path as the manifest writes it: relative to the data folder's parent if inside."""
    if path is None:
        return None
    base = study_.data.resolve().parent
    p = Path(path).resolve()
    return p.relative_to(base).as_posix() if p.is_relative_to(base) else str(path)


def git_state(root: str | os.PathLike[str] = ROOT) -> dict:
    """Return the checkout's git commit and whether its work tree is dirty.

    Parameters
    ----------
    root : path
        A folder inside the work tree (default: this checkout).

    Returns
    -------
    dict
        ``sha``, ``dirty`` and ``changed`` (paths ``git status --porcelain`` lists, untracked
        included), or ``sha`` None and ``error`` when there is no git or no repository.
    """
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              check=True, timeout=60).stdout

    try:
        sha = git("rev-parse", "HEAD").strip()
        status = [line for line in git("status", "--porcelain").splitlines() if line.strip()]
    except (OSError, subprocess.SubprocessError) as exc:
        err = getattr(exc, "stderr", None) or str(exc)
        return {"sha": None, "dirty": None, "error": err.strip().splitlines()[-1][:200]}
    return {"sha": sha, "dirty": bool(status), "changed": len(status)}


def software(chromium: str | None) -> dict:
    """Return the versions of Python, the packages that draw and print, and chromium."""
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str | None] = {"python": platform.python_version()}
    for dist in SOFTWARE:
        try:
            found[dist] = version(dist)
        except PackageNotFoundError:
            found[dist] = None
    found["chromium"] = None
    if chromium:
        try:
            out = subprocess.run([chromium, "--version"], capture_output=True, text=True,
                                 timeout=60).stdout.strip()
            found["chromium"] = out.splitlines()[-1] if out else None
        except (OSError, subprocess.SubprocessError):
            pass
    return found


def _tools(tidy: Path) -> list[dict]:
    """Return the distinct (tool, version) pairs of a tidy folder's provenance (else measurements)."""
    import pandas as pd

    for table in ("provenance.parquet", "measurements.parquet"):
        path = tidy / table
        if not path.exists():
            continue
        try:
            df = pd.read_parquet(path, columns=["tool", "tool_version"])
        except (OSError, ValueError, KeyError):
            continue
        pairs = df.drop_duplicates().sort_values(["tool", "tool_version"], na_position="last")
        return [{"tool": str(t), "version": None if pd.isna(v) else str(v)}
                for t, v in pairs.itertuples(index=False)]
    return []


def _provenance(tidy: Path):
    """Return a tidy folder's provenance table, or None."""
    import pandas as pd

    path = tidy / "provenance.parquet"
    if not path.exists():
        return None
    try:
        return pd.read_parquet(path)
    except (OSError, ValueError):
        return None


def _distinct(df, column: str) -> list[str]:
    """Distinct non-missing values of a column, sorted (empty when the column is absent)."""
    if df is None or column not in df.columns:
        return []
    return sorted({str(v) for v in df[column].dropna() if str(v)})


def _authors_inputs(st: Study, not_found: list[str]) -> dict:
    """Return the authors' raw files as the ingest recorded them, re-hashed if the tree is here."""
    tidy = st.tidy
    prov = _provenance(tidy) if tidy else None
    files: dict[str, dict] = {}
    if prov is not None and {"source_file", "source_sha256"} <= set(prov.columns):
        for f, h in prov[["source_file", "source_sha256"]].drop_duplicates().itertuples(index=False):
            if isinstance(f, str) and isinstance(h, str) and h:
                files.setdefault(f, {"path": f, "sha256": h, "recorded_in": []})
                files[f]["recorded_in"].append("provenance.parquet")
    else:
        not_found.append(f"{_display(tidy / 'provenance.parquet', st)}: the authors' input "
                         "hashes (ingest them: make ingest)")
    root = None
    manifest = tidy / "manifest.json" if tidy else None
    if manifest and manifest.is_file():
        ingest = json.loads(manifest.read_text())
        root = ingest.get("root")
        for f, h in (ingest.get("inputs") or {}).items():
            entry = files.setdefault(f, {"path": f, "sha256": h, "recorded_in": []})
            if entry["sha256"] != h:
                entry["sha256_ingest_manifest"] = h
            entry["recorded_in"].append("manifest.json")
    elif tidy is not None:
        not_found.append(f"{_display(manifest, st)}: the ingest manifest")
    verified = 0
    if root and Path(root).is_dir():
        for entry in files.values():
            p = Path(root) / entry["path"]
            entry["verified"] = p.is_file() and file_sha256(p) == entry["sha256"]
            verified += entry["verified"]
    elif root:
        not_found.append(f"{root}: the authors' tree the ingest read (hashes as recorded, "
                         "not checked again)")
    return {"kind": "the authors' raw files (thewmf/kvm-docker-comparison)", "root": root,
            "campaign": _distinct(prov, "campaign"), "count": len(files),
            "verified_now": verified if root and Path(root).is_dir() else None,
            "files": sorted(files.values(), key=lambda e: e["path"])}


def _campaign_inputs(st: Study, not_found: list[str]) -> dict:
    """Return every file of the campaign's raw tree hashed, and its YAML, checked on provenance."""
    prov = _provenance(st.tidy) if st.tidy else None
    out: dict = {"kind": "the campaign's raw tree", "campaign": st.campaign,
                 "root": _display(st.raw, st)}
    files = []
    if st.raw is not None and st.raw.is_dir():
        for p in sorted(x for x in st.raw.rglob("*") if x.is_file()):
            files.append({"path": p.relative_to(st.raw).as_posix(), "sha256": file_sha256(p),
                          "bytes": p.stat().st_size})
    else:
        not_found.append(f"{_display(st.raw, st)}: the campaign's raw tree")
    out["count"] = len(files)
    out["files"] = files
    if prov is not None and {"source_file", "source_sha256"} <= set(prov.columns) and files:
        have = {f["path"]: f["sha256"] for f in files}
        recorded = prov[["source_file", "source_sha256"]].dropna().drop_duplicates()
        out["provenance_checked"] = len(recorded)
        out["provenance_mismatched"] = sorted(f for f, h in recorded.itertuples(index=False)
                                              if f in have and have[f] != h)
        out["provenance_missing"] = sorted(f for f, _ in recorded.itertuples(index=False)
                                           if f not in have)
    campaign: dict = {"name": st.campaign, "file": _display(st.campaign_file, st),
                      "campaign_hash_in_provenance": _distinct(prov, "campaign_hash")}
    if st.campaign_file is not None and st.campaign_file.is_file():
        campaign["sha256"] = file_sha256(st.campaign_file)
        try:
            from overhead.campaign import inventory

            loaded = inventory.load(st.campaign_file)
            campaign["campaign_hash"] = loaded.sha256
            campaign["campaign_hash_matches"] = (loaded.sha256 in campaign["campaign_hash_in_provenance"]
                                                 if campaign["campaign_hash_in_provenance"] else None)
        except OverheadError as exc:
            campaign["campaign_hash"] = None
            campaign["error"] = str(exc)[:300]
    else:
        not_found.append(f"campaign {st.campaign}: its YAML (not in "
                         f"{_display(st.data / 'campaigns', st)} nor the raw tree)")
    resolved = st.raw / "campaign.json" if st.raw is not None else None
    if resolved is not None and resolved.is_file():
        # the campaign as run (profile merged, --set overrides applied): its hash is the one
        # the trials recorded, where the YAML alone gives another
        try:
            as_run = json.loads(resolved.read_text()).get("sha256")
        except (OSError, ValueError):
            as_run = None
        campaign["campaign_hash_as_run"] = as_run
        if as_run and campaign["campaign_hash_in_provenance"]:
            campaign["campaign_hash_as_run_matches"] = as_run in campaign["campaign_hash_in_provenance"]
    out["campaign_file"] = campaign
    return out


def _comparison_inputs(st: Study, not_found: list[str]) -> dict:
    """Return each compared campaign's inputs (:func:`_campaign_inputs`), by campaign."""
    files = _campaign_names(st.data / "campaigns")
    out: dict = {"kind": "the compared campaigns' raw trees", "campaigns": {}}
    for name in [c for c in (st.campaign or "").split(",") if c]:
        raw = st.data / "raw" / name
        yml = files.get(name) or (raw / "campaign.yml" if (raw / "campaign.yml").is_file() else None)
        sub = Study(name, "campaign", st.folder, tidy=st.data / "tidy" / name, raw=raw,
                    campaign=name, campaign_file=Path(yml) if yml else None, data=st.data)
        out["campaigns"][name] = _campaign_inputs(sub, not_found)
    return out


def manifest(st: Study, dest: Path, chromium: str | None, not_found: list[str],
             contents: dict) -> dict:
    """Return the manifest of a bundle folder (every file in it but manifest.json)."""
    tidy_found = st.tidy is not None and st.tidy.is_dir()
    if st.tidy is not None and not tidy_found:
        not_found.append(f"{_display(st.tidy, st)}: the tidy data (tool versions, provenance)")
    inputs = (_authors_inputs(st, not_found) if st.kind == "rc25482"
              else _comparison_inputs(st, not_found) if st.kind == "comparison"
              else _campaign_inputs(st, not_found))
    prov = _provenance(st.tidy) if tidy_found else None
    reference = ({"path": _display(st.reference, st), "sha256": file_sha256(st.reference)}
                 if st.reference is not None else None)
    figures_git = git_state(st.folder)
    checkout = git_state(ROOT)
    files = [{"path": p.relative_to(dest).as_posix(), "sha256": file_sha256(p),
              "bytes": p.stat().st_size}
             for p in sorted(dest.rglob("*")) if p.is_file() and p != dest / "manifest.json"]
    doc = {
        "bundle": st.name,
        "created_utc": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds").replace("+00:00",
                                                                                        "Z"),
        "study": {"name": st.name, "kind": st.kind, "title": _title(st.folder),
                  "campaign": st.campaign, "source": _display(st.folder, st)},
        "git": {"checkout": str(ROOT), **checkout},
        "software": software(chromium),
        "tools": _tools(st.tidy) if tidy_found else [],
        "data": {"tidy": _display(st.tidy, st), "tidy_found": tidy_found,
                 "measured_with_git_sha": _distinct(prov, "git_sha"),
                 "reference": reference, "inputs": inputs},
        "contents": contents,
        "not_found": not_found,
        "files": files,
    }
    if figures_git.get("sha") and figures_git.get("sha") != checkout.get("sha"):
        doc["git"]["figures_checkout"] = figures_git
    return doc


# ---------------------------------------------------------------------------------------------
# a bundle


def _copy(src: Path, dest: Path, rel: str, placed: dict[str, str]) -> None:
    """Copy ``src`` to ``dest/rel`` and remember where it went."""
    (dest / rel).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest / rel)
    placed[src.name] = rel


def _zip(folder: Path, path: Path) -> None:
    """Zip ``folder`` as ``<name>/...`` entries, in name order, with fixed times.

    The same files give the same zip.
    """
    tmp = path.with_name(f".{path.name}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                info = zipfile.ZipInfo(f"{folder.name}/{p.relative_to(folder).as_posix()}",
                                       date_time=_ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                with open(p, "rb") as f:
                    zf.writestr(info, f.read())
    os.replace(tmp, path)


def publish(st: Study, out: str | os.PathLike[str], *, chromium: str | None = None,
            timeout: float = PDF_TIMEOUT, paper: str = "A4") -> Bundle:
    """Write ``<out>/<name>/`` and ``<out>/<name>.zip`` for one study (replacing earlier ones).

    Parameters
    ----------
    st : Study
        From :func:`study` or :func:`find_studies`.
    out : path
        The output folder (``dist``).
    chromium : str, optional
        The chromium executable (default: :func:`find_chromium`).
    timeout : float
        Seconds chromium may take to print the report.
    paper : str
        The paper size report.pdf is printed on: ``A4`` (the pages' own) or ``letter``.

    Returns
    -------
    Bundle

    Raises
    ------
    InputError
        When ``paper`` is neither.
    """
    if paper.lower() not in PAPER:
        raise InputError(f"paper size {paper!r}: not one of {', '.join(PAPER)}")
    started = time.perf_counter()
    chromium = find_chromium(chromium)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    dest = out / st.name
    work = Path(tempfile.mkdtemp(prefix=f".{st.name}.", dir=out)) / st.name
    work.mkdir()
    try:
        not_found: list[str] = []
        placed: dict[str, str] = {}
        files = sorted(p for p in st.folder.iterdir() if p.is_file())
        by_stem: dict[str, dict[str, Path]] = {}
        for p in files:
            by_stem.setdefault(p.stem, {})[p.suffix.lstrip(".")] = p
        # figures: static files copied, plotly-only ones exported
        figures, exports = [], []
        for stem, kinds in sorted(by_stem.items()):
            plotly_page = kinds.get("html") if "html" in kinds and is_plotly_page(kinds["html"]) else None
            static = [f for f in FIGURE_FORMATS if f in kinds]
            if not static and plotly_page is None:
                if "png" in kinds:
                    not_found.append(f"figure {stem}: PNG only, no PDF, SVG or plotly page to "
                                     "publish")
                continue
            figures.append(stem)
            for fmt in static:
                _copy(kinds[fmt], work, f"figures/{stem}.{fmt}", placed)
            todo = [f for f in FIGURE_FORMATS if f not in kinds]
            if todo and plotly_page is not None:
                exports.append((plotly_page, work / "figures" / stem, todo))
            elif todo:
                not_found.append(f"figure {stem}: no {' or '.join(todo).upper()} and no plotly "
                                 "page to export it from")
        for fmts in {tuple(t) for _, _, t in exports}:
            export_plotly([(p, s) for p, s, t in exports if tuple(t) == fmts], chromium, fmts)
        # tables: CSV copied, Markdown and LaTeX copied or made from it
        tables = []
        for stem, kinds in sorted(by_stem.items()):
            if not {"csv", "md", "tex"} & set(kinds):
                continue
            tables.append(stem)
            for fmt in ("csv", "md", "tex"):
                if fmt in kinds:
                    _copy(kinds[fmt], work, f"tables/{stem}.{fmt}", placed)
            todo = [f for f in ("md", "tex") if f not in kinds]
            if todo and "csv" in kinds:
                try:
                    made = table_formats(kinds["csv"], stem)
                except (ValueError, OverheadError) as exc:
                    not_found.append(f"table {stem}: {stem}.csv does not convert "
                                     f"({str(exc).splitlines()[0][:200]})")
                    continue
                for fmt in todo:
                    (work / "tables" / f"{stem}.{fmt}").write_text(made[fmt])
            elif todo:
                not_found.append(f"table {stem}: no CSV to make its {' and '.join(todo)} from")
        not_found += bundle_report(st.folder, work, placed)
        if paper.lower() != "a4":  # the pages ask for A4 (overhead.pages.STYLE)
            page = work / "report.html"
            page.write_text(page.read_text().replace("@page{size:A4", f"@page{{size:{PAPER[paper.lower()]}"))
        pages = print_pdf(work / "report.html", work / "report.pdf", chromium, timeout=timeout)
        contents = {"figures": figures, "tables": tables, "exported_from_plotly":
                    sorted(p.stem for p, _, _ in exports), "report_pdf_pages": pages}
        doc = manifest(st, work, chromium, not_found, contents)
        (work / "manifest.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(work, dest)
    finally:
        shutil.rmtree(work.parent, ignore_errors=True)
    zpath = out / f"{st.name}.zip"
    _zip(dest, zpath)
    listed = [p for p in dest.rglob("*") if p.is_file()]
    return Bundle(st.name, dest, zpath, len(listed), zpath.stat().st_size,
                  time.perf_counter() - started, pages, list(doc["not_found"]))


def publish_all(figures: str | os.PathLike[str], out: str | os.PathLike[str], *,
                data: str | os.PathLike[str] | None = None,
                tidy: str | os.PathLike[str] | None = None,
                raw: str | os.PathLike[str] | None = None, only: Sequence[str] | None = None,
                chromium: str | None = None, timeout: float = PDF_TIMEOUT,
                paper: str = "A4") -> list[Bundle]:
    """Publish every study of a figures folder (see :func:`find_studies` and :func:`publish`).

    Parameters
    ----------
    figures : path
        The figures folder.
    out : path
        The output folder.
    data, tidy, raw : path, optional
        Where the data is (:func:`study`).
    only : sequence of str, optional
        The studies to publish (default: all).
    chromium : str, optional
        The chromium executable.
    timeout : float
        Seconds chromium may take per report.
    paper : str
        ``A4`` or ``letter`` (:func:`publish`).

    Returns
    -------
    list of Bundle
    """
    studies = find_studies(figures, data=data, tidy=tidy, raw=raw, only=only)
    chromium = find_chromium(chromium)
    return [publish(st, out, chromium=chromium, timeout=timeout, paper=paper) for st in studies]


__all__ = ["AUTHORS_STUDY", "Bundle", "Study", "bundle_report", "export_plotly", "find_chromium",
           "find_studies", "git_state", "manifest", "pdf_pages", "plotly_figure", "print_pdf",
           "publish", "publish_all", "software", "study", "table_formats"]
