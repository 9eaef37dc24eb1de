"""A measured campaign, loaded for analysis: its done trials' rows, trials and provenance.

Every study that reads a campaign (the live paper, the neighbouring studies) starts from the
same three tables of ``data/tidy/<campaign>/`` (written by :mod:`overhead.campaign.ingest`):
the measurements of done, non-warm-up trials, labelled with the campaign's environment name
and its display label; the trials table; and the provenance per run. :func:`open_results`
loads them, :func:`where` says what was measured where (accelerator, Docker, the VM's disk
and network, kernel, trials done and failed).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from overhead import stats
from overhead.environments import label as env_label
from overhead.environments import order as env_order
from overhead.errors import InputError
from overhead.names import BASELINE
from overhead.paths import FIGURES, ROOT, TIDY

__all__ = ["Results", "campaign_name", "compare", "display_label", "in_words", "margin_words",
           "noise_html", "open_results", "pct_words", "verdict_short", "where", "where_notes", "where_section",
           "where_shown"]


@dataclass
class Results:
    """One ingested campaign, ready for a study's tables.

    Attributes
    ----------
    name : str
        The campaign's name (``data/tidy/<name>``).
    tidy : pathlib.Path
        Its tidy folder.
    out : pathlib.Path
        Where its tables and figures go (``figures/<name>`` unless told otherwise).
    rows : pandas.DataFrame
        The measurements of done, non-warm-up trials, with ``env_name`` (the campaign's
        environment) and ``label`` (its display label).
    trials : pandas.DataFrame
        The campaign's trials table.
    provenance : pandas.DataFrame
        One row per run.
    plan : dict
        The last run's plan (``plan.json`` copied by ingest: its stopping rule's ``stops`` per
        cell and ``decisions`` per comparison); empty when there is none.
    """

    name: str
    tidy: Path
    out: Path
    rows: pd.DataFrame
    trials: pd.DataFrame
    provenance: pd.DataFrame
    plan: dict = field(default_factory=dict)

    def stop_reasons(self, cells: str, quantity: str | None = None) -> str:
        """Say briefly why the campaign's cells (comma-separated ids) got the trials they have.

        The plan records each judged comparison (``<cell>#<quantity>``) with its verdict in
        words and why it stopped. A table row already shows the verdict, n and the interval,
        so only the reason is said ("decided after 5 trials", "cap of 6 rounds reached",
        "time budget of 14 min spent (21.6 min)"), once per distinct reason: the comparison of
        ``quantity`` where the plan judged that quantity, else every comparison of the cells.
        A cell without a judged comparison (the baseline, a fixed count) says what the plan
        says of it, only where nothing else is said.
        """
        ids = [c for c in str(cells).split(",") if c]
        decisions = self.plan.get("decisions", {})
        said: list[str] = []
        for cid in ids:
            mine = [r for k, r in decisions.items() if k.split("#", 1)[0] == cid]
            if quantity is not None and any(r.get("quantity") == quantity for r in mine):
                mine = [r for r in mine if r.get("quantity") == quantity]
            said += [_stop_reason(r) for r in mine if r.get("stopped") and r.get("why")]
        if not said:
            stops = self.plan.get("stops", {})
            said = [stops[c] for c in ids if c in stops]
        return " | ".join(dict.fromkeys(said))

    def benchmark(self, name: str, metric: str | tuple[str, ...], **where: object) -> pd.DataFrame:
        """Rows of one benchmark and metric(s), filtered on column values (p_kernel="hpl")."""
        metrics = (metric,) if isinstance(metric, str) else metric
        sel = self.rows[(self.rows["benchmark"] == name) & self.rows["metric"].isin(metrics)]
        for column, value in where.items():
            if value is None:
                sel = sel[sel[column].isna()]
            else:
                sel = sel[sel[column] == value]
        return sel


def _stop_reason(record: dict) -> str:
    """Return why a judged comparison stopped, without its verdict in words (said beside it)."""
    why, words = str(record["why"]), str(record.get("words") or "")
    return why[:-len(words) - 2] if words and why.endswith(": " + words) else why


def display_label(environment: str, variant: object) -> str:
    """Display label of a campaign environment: the default runtime (runc) left out."""
    parts = [p for p in str(variant).split(",") if p and p != "runtime=runc"] \
        if isinstance(variant, str) else []
    return env_label(environment, ",".join(parts) or None)


def campaign_name(campaign: str | os.PathLike[str]) -> str:
    """Return the name of a campaign given by name (``local-quick``) or by its YAML file."""
    text = str(campaign)
    if text.endswith((".yml", ".yaml")):
        from overhead.campaign import inventory

        path = Path(text) if Path(text).is_absolute() else ROOT / text
        return inventory.load(path).name
    return text


def ingested(campaign: str | os.PathLike[str],
             tidy_root: str | os.PathLike[str] | None = None) -> tuple[str, Path]:
    """Return an ingested campaign's name and tidy folder, or refuse naming the folder.

    Raises
    ------
    InputError
        When ``<tidy_root>/<name>`` holds no ingested trials.
    """
    name = campaign_name(campaign)
    tidy = Path(tidy_root or TIDY) / name
    if not (tidy / "trials.parquet").exists():
        raise InputError(f"{tidy}: campaign {name!r} has no ingested trials (run "
                         f"notebooks/campaign.ipynb or `overhead run` for it first)")
    return name, tidy


def open_results(campaign: str | os.PathLike[str], *,
                 tidy_root: str | os.PathLike[str] | None = None,
                 out_root: str | os.PathLike[str] | None = None,
                 out: str | os.PathLike[str] | None = None) -> Results:
    """Load an ingested campaign.

    Parameters
    ----------
    campaign : str or path
        The campaign's name (``local-quick``) or its YAML file (its name is read from it).
    tidy_root : path, optional
        The folder of tidy trees (default ``data/tidy``).
    out_root : path, optional
        The folder of figure trees (default ``figures``); output goes to ``<out_root>/<name>``.
    out : path, optional
        The output folder itself (a study's ``figures/<study>``), instead of ``out_root``.

    Returns
    -------
    Results
        The campaign's rows and folders (the output folder is created).

    Raises
    ------
    InputError
        When the campaign has not been ingested (naming the folder looked at).
    """
    from overhead.tidy import load

    name, tidy = ingested(campaign, tidy_root)
    trials = pd.read_parquet(tidy / "trials.parquet")
    rows = load(tidy)
    done = trials.loc[(trials["status"] == "done") & ~trials["warmup"].astype(bool), "run_id"]
    rows = rows[rows["run_id"].isin(set(done)) & ~rows["warmup"].astype(bool)].copy()
    env_name = trials.set_index("run_id")["env_name"]
    rows["env_name"] = rows["run_id"].map(env_name).astype("string")
    if "cell" in trials:
        rows["cell"] = rows["run_id"].map(trials.set_index("run_id")["cell"]).astype("string")
    if "round" in trials:
        rows["round"] = rows["run_id"].map(trials.set_index("run_id")["round"]).astype("Int64")
    plan_path = tidy / "plan.json"
    plan = json.loads(plan_path.read_text()) if plan_path.exists() else {}
    designs = plan.get("designs") or {}
    if designs and "cell" in rows and "round" in rows:
        # the sequential design each row's comparison was decided with (its cell's), so that
        # every table replays the stopping rule's looks (compare)
        text = {cid: json.dumps(d, sort_keys=True) for cid, d in designs.items()}
        # "" for a cell without one (the baseline's): a grouping key, never NaN
        rows["design"] = rows["cell"].map(text).fillna("").astype("string")
    pairs = rows[["environment", "variant"]].drop_duplicates()
    names = {(e, v if isinstance(v, str) else None): display_label(e, v)
             for e, v in pairs.itertuples(index=False)}
    rows["label"] = [names[(e, v if isinstance(v, str) else None)]
                     for e, v in zip(rows["environment"], rows["variant"], strict=True)]
    prov_path = tidy / "provenance.parquet"
    provenance = pd.read_parquet(prov_path) if prov_path.exists() else pd.DataFrame()
    folder = Path(out) if out is not None else Path(out_root or FIGURES) / name
    folder.mkdir(parents=True, exist_ok=True)
    return Results(name, tidy, folder, rows, trials, provenance, plan)


def where(live: Results) -> pd.DataFrame:
    """Say what was measured where: one row per campaign environment.

    Columns: env_name, label, environment, variant, host, virtualization (what ran the runs and
    what the host itself is: "native, host is a VM (kvm), ..."), client (where the load
    generators ran: "same host as the server", or the client host), nat_path (a Docker NAT
    environment's path for that client, and its userland proxy), accelerator (and its QEMU
    version), Docker version and network mode, the VM's scratch disk (device, size, host cache
    mode) and network, the kernel of the runs (a VM's: the guest's) and the host's kernel
    under a VM or container, the CPU model, trials done and failed. A fact older trees did
    not record is None.
    """
    t = live.trials
    counts = t.groupby("env_name")["status"].value_counts().unstack(fill_value=0)
    prov = live.provenance.copy()
    if not prov.empty:
        prov["env_name"] = prov["run_id"].str.split("/").str[1]
    out = []
    for env_name, g in t.groupby("env_name", sort=False):
        # a trial of an environment that never came up may lack its labels: take them from
        # any trial of that environment that has them, else name the campaign's environment
        known = g[g["environment"].notna()]
        first = (known if len(known) else g).iloc[0]
        p = prov[prov["env_name"] == env_name] if not prov.empty else prov

        def fact(column: str, p: pd.DataFrame = p) -> object:
            if column not in p or p[column].dropna().empty:
                return None
            return ", ".join(sorted({str(v) for v in p[column].dropna()}))

        def note(name: str, p: pd.DataFrame = p) -> object:
            """Return a fact kept in the provenance notes (``name=value; ...``)."""
            if "notes" not in p:
                return None
            found = {m.group(1).strip() for text in p["notes"].dropna()
                     for m in re.finditer(rf"(?:^|; ){re.escape(name)}=([^;]*)", str(text))}
            return ", ".join(sorted(found)) or None

        client = _client(note("client_host"), first["host"])
        out.append({"env_name": env_name,
                    "label": (display_label(first["environment"], first["variant"])
                              if isinstance(first["environment"], str) else str(env_name)),
                    "environment": first["environment"], "variant": first["variant"],
                    "host": first["host"],
                    "virtualization": _virtualization(first["environment"], note),
                    "client": client,
                    "nat_path": _nat_path(note, client),
                    "accelerator": fact("accelerator"),
                    "qemu_version": fact("qemu_version"), "docker_version": fact("docker_version"),
                    "docker_network_mode": fact("docker_network_mode"),
                    "vm_scratch_disk": note("vm_scratch_disk"),
                    "vm_network": note("vm_network"),
                    "kernel": fact("kernel"), "host_kernel": note("host_kernel"),
                    "cpu_model": fact("cpu_model"),
                    "done": int(counts.loc[env_name].get("done", 0)),
                    "failed": int(counts.loc[env_name].get("failed", 0))})
    return _in_campaign_order(pd.DataFrame(out), live.plan)


def _in_campaign_order(table: pd.DataFrame, plan: dict | None) -> pd.DataFrame:
    """Order a frame with ``env_name`` as the campaign file lists its environments.

    The plan's cells follow the file (native first, as written); an environment the plan does
    not name keeps its place after them. Without a plan the order is left as it is.
    """
    cells = (plan or {}).get("cells") or {}
    order = list(dict.fromkeys(c.get("environment") for c in cells.values()
                               if isinstance(c, dict)))
    if table.empty or not order:
        return table
    rank = table["env_name"].map({e: i for i, e in enumerate(order)}).fillna(len(order))
    return table.assign(_rank=rank).sort_values("_rank", kind="stable") \
        .drop(columns="_rank").reset_index(drop=True)


def _client(clients: object, host: object) -> str | None:
    """Say where a campaign environment's load generators ran, from the ``client_host`` notes."""
    if not clients:
        return None
    said = ["same host as the server" if c == host else f"host {c}"
            for c in str(clients).split(", ")]
    return ", ".join(dict.fromkeys(said))


#: The container kinds (tidy ``environment``) whose own virtualization facts are the
#: container's view (a ``/run/.containerenv`` of its own): their host's are ``host_virt_*``.
CONTAINERS = {"docker": "in a Docker container", "podman": "in a Podman container",
              "lxc": "in an LXC container"}


def _virtualization(environment: object, note) -> str | None:
    """Say what ran an environment's runs and what its host is (``native, host is a VM (kvm)``).

    A native or static run's own ``virt_*`` facts are its host's; a container's (Docker,
    Podman, LXC) or guest's host is in its ``host_virt_*`` facts (the guest's own ``virt_vm`` names what it sees:
    ``qemu`` under TCG, ``kvm`` under KVM).
    """
    from overhead.environments.posix import host_phrase

    def facts(prefix: str) -> dict:
        return {k: note(prefix + k) for k in ("virt_vm", "virt_container", "virt_how")
                if note(prefix + k) is not None}

    env = str(environment)
    if env in (*CONTAINERS, "vm", "kvm"):
        host = host_phrase(facts("host_"))
        own = CONTAINERS.get(env)
        if own is None:
            guest = note("virt_vm")
            own = f"in a VM (the guest sees {guest})" if guest else "in a VM"
        return f"{own}, host is {host}" if host else None
    host = host_phrase(facts(""))
    return f"{env}, host is {host}" if host else None


def _nat_path(note, client: str | None) -> str | None:
    """Say a Docker NAT environment's path for its clients, and its userland proxy setting."""
    remote = client is not None and any(c.startswith("host ") for c in client.split(", "))
    path = note("docker_nat_remote" if remote else "docker_nat_local")
    if path is None or str(path).startswith("none"):
        return path
    proxy = note("docker_userland_proxy")
    return str(path) + (f", userland proxy {proxy}" if proxy else "")


def _has_nat(path: object) -> bool:
    """Whether a where-table ``nat_path`` states a NAT path (not None, not ``none: ...``)."""
    return isinstance(path, str) and not path.startswith("none")


#: The rows of :func:`where_shown`: a fact of :func:`where` and how a page names it. What ran the
#: runs is split into the environment's own part and its host's; the Docker NAT path and where
#: the load generators ran are left to :func:`where_notes`, which says them in full.
WHERE_FACTS = (("environment", "environment"), ("variant", "variant"), ("host", "host"),
               ("ran", "ran"), ("host_is", "its host is"), ("accelerator", "accelerator"),
               ("qemu_version", "QEMU"), ("docker_version", "Docker"),
               ("docker_network_mode", "Docker network mode"), ("vm_scratch_disk", "VM scratch disk"),
               ("vm_network", "VM network"), ("kernel", "kernel of the runs"),
               ("host_kernel", "host kernel"), ("cpu_model", "CPU"), ("done", "trials done"),
               ("failed", "trials failed"))


def _breakable(text: str, longest: int = 24) -> str:
    """Let a long value wrap in a table cell.

    A zero-width space goes after each "," and "/" of a word longer than ``longest`` (mount
    options, image paths), which has no space to wrap at; shorter words are left as they are.
    """
    return " ".join(w.replace(",", ",\u200b").replace("/", "/\u200b") if len(w) > longest else w
                    for w in text.split(" "))


#: How :func:`where_shown` says a fact every environment shares (default: "Name, every
#: environment: value.").
SHARED_WORDS = {"host_is": "Every environment's host is {value}.",
                "host": "Every environment ran on host {value}."}


def where_shown(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Lay :func:`where` out to fit a page: a column per environment, a row per fact.

    :func:`where` has a row per environment and some twenty columns, wider than any page. Here
    the facts are rows and the environments (by label) columns; a fact every environment shares
    is said once in a sentence instead of repeated in every column, and a fact no environment
    recorded is left out (the CSV keeps them all).

    Parameters
    ----------
    table : pandas.DataFrame
        The frame :func:`where` returns.

    Returns
    -------
    (pandas.DataFrame, list of str)
        The facts that differ between environments (index: the fact's name, columns: the
        environments' labels; "-" where one environment lacks the fact), and one sentence per
        shared fact ("CPU, every environment: ...").
    """
    if table.empty:
        return pd.DataFrame(), []
    labels = table["label"].astype(str).tolist()
    if len(set(labels)) < len(labels):  # two environments one label: name them instead
        labels = table["env_name"].astype(str).tolist()
    # a variant's ", " lets its cell wrap; a column of no variants at all is all NaN (floats)
    table = table.assign(variant=[v.replace(",", ", ") if isinstance(v, str) else None
                                  for v in table["variant"]])
    if "virtualization" in table:
        split = [v.split(", host is ", 1) if isinstance(v, str) else [None]
                 for v in table["virtualization"]]
        table = table.assign(ran=[s[0] for s in split],
                             host_is=[s[1] if len(s) > 1 else None for s in split])
    rows, shared = {}, []
    for column, name in WHERE_FACTS:
        if column not in table:
            continue
        values = table[column]
        if values.isna().all():
            continue
        words = ["-" if pd.isna(v) else str(v) for v in values]
        if len(table) > 1 and values.notna().all() and len(set(words)) == 1:
            shared.append(SHARED_WORDS.get(column, "{Name}, every environment: {value}.").format(
                Name=name[0].upper() + name[1:], value=words[0]))
        else:
            rows[name] = [_breakable(w) for w in words]
    shown = pd.DataFrame.from_dict(rows, orient="index", columns=labels)
    shown.index.name = "fact"
    return shown, shared


#: The most environments one "What was measured where" table shows side by side; more are
#: shown in further tables of as many (each fact a row of each), so the page never scrolls
#: sideways (eight environments' Docker, Podman and LXC facts made a table 1,060 px wide).
WHERE_COLUMNS = 4


def where_section(page, table: pd.DataFrame) -> None:
    """Add "What was measured where" to a report page (:class:`overhead.pages.Page`).

    The facts laid out to fit the page (:func:`where_shown`; at most :data:`WHERE_COLUMNS`
    environments a table), the ones every environment shares in a sentence, then each note of
    :func:`where_notes`.
    """
    facts, shared = where_shown(table)
    page.heading("What was measured where")
    if facts.shape[1] <= WHERE_COLUMNS:
        page.table(facts)
    else:
        for start in range(0, facts.shape[1], WHERE_COLUMNS):
            part = facts.iloc[:, start:start + WHERE_COLUMNS]
            # a fact none of these environments has is left out of their table
            part = part[(part != "-").any(axis=1)]
            page.table(part, caption=f"environments {start + 1}-"
                                     f"{min(start + WHERE_COLUMNS, facts.shape[1])} of "
                                     f"{facts.shape[1]}")
    if shared:
        page.text(" ".join(shared))
    for said in where_notes(table):
        page.text(said)


def where_notes(table: pd.DataFrame) -> list[str]:
    """Say in sentences what the where-table implies for reading the numbers.

    A Docker NAT environment's path (the paper's client was another machine: its packets came
    in through PREROUTING and were not masqueraded) and the load generators that shared the
    server's host (and its CPUs).
    """
    out = []
    for _, r in table.iterrows():
        nat = r.get("nat_path")
        if _has_nat(nat):
            out.append(f"{r['label']}: {nat}; the paper's client was on another machine (its "
                       "packets came in through PREROUTING, not masqueraded).")
    shared = [str(r["label"]) for _, r in table.iterrows()
              if isinstance(r.get("client"), str) and "same host" in r["client"]]
    if shared:
        out.append("The load generators ran on the same host as the servers they measured ("
                   + ", ".join(shared) + "): client and server shared its CPUs, where the "
                   "paper's client was another machine.")
    return out


def _designs(d: pd.DataFrame, rows: pd.DataFrame):
    """Return key -> the sequential design of a comparison's environment rows (None: none).

    A campaign whose stopping rule decided sequentially gives each row the design of its cell
    (:func:`open_results`); a point whose rows carry one design is replayed with it, look by
    look over its rounds, so that the table's verdict is the rule's.
    """
    from overhead.stats.sequential import Design

    found: dict[tuple, set] = {}
    for env, xv, text in zip(d["environment"], d["x"], rows["design"], strict=True):
        if isinstance(text, str) and text:
            found.setdefault((env, xv), set()).add(text)
    designs = {k: Design.from_json(json.loads(next(iter(v)))) for k, v in found.items()
               if len(v) == 1}

    def design_of(key: dict):
        return designs.get((key.get("environment"), key.get("x")))

    return design_of


def compare(rows: pd.DataFrame, item: str, unit: str, scale: float = 1.0, *, x: str | None = None,
            baseline: str = BASELINE, margin: object = None,
            higher_is_better: bool | None | str = "auto") -> pd.DataFrame:
    """Compare environments on one measured quantity: per (item, environment, x) vs the baseline.

    The statistics are :func:`overhead.stats.curve`'s: n, the mean with its 95% interval (log-t
    for a positive quantity, logit-t for a percentage), and against the baseline the ratio with
    the interval its verdict is decided on, the verdict against the equivalence margin of
    ``data/reference/margins.yml`` and the trials that would decide an inconclusive one. A run
    without a value (NaN: nothing measurable) is not a trial of the comparison: n counts the runs
    that have one.

    Parameters
    ----------
    rows : pandas.DataFrame
        Tidy rows of one quantity, with ``label`` (the environment's display label) and
        ``value``; one row per trial (or per run, for per-run values). A ``cell`` column (the
        campaign's cell of each row, as :func:`open_results` adds) gives the ``cells`` column.
    item : str
        The name of the quantity (a panel of a figure, a row group of a table).
    unit : str
        The unit after dividing by ``scale`` ("%": a share, whose interval stays in 0-100).
    scale : float
        Divide values by this (e.g. 1e-3 for seconds shown in milliseconds).
    x : str, optional
        A swept parameter column (a point per value); none for one point per environment.
    baseline : str
        The baseline environment's label; when absent, no ratios are computed.
    margin : Margin, callable or None
        The equivalence margin; None: ``overhead.margins`` looked up with the item and the
        rows' benchmark and metric.
    higher_is_better : bool, None or "auto"
        The quantity's better direction; "auto" reads the rows' ``higher_is_better``.

    Returns
    -------
    pandas.DataFrame
        item, environment, x, the curve columns, unit, x_name, modes (the two groups when the
        point's trial values form two, :func:`overhead.stats.modes.gap_test`; else empty) and
        cells (the campaign cells the point's trials come from); empty without values.
    """
    from overhead import margins as margin_file

    rows = rows[rows["value"].notna()]
    if rows.empty:
        return pd.DataFrame()
    d = pd.DataFrame({"item": item, "environment": rows["label"].to_numpy(),
                      "x": rows[x].to_numpy() if x else "",
                      "value": rows["value"].to_numpy(dtype=float) / scale})
    if higher_is_better == "auto":
        seen = rows["higher_is_better"].dropna().unique() if "higher_is_better" in rows else []
        higher_is_better = bool(seen[0]) if len(seen) == 1 else None
    if margin is None:
        fields = {"item": item}
        for column in ("benchmark", "metric", "tool"):
            if column in rows and rows[column].nunique() == 1:
                fields[column] = str(rows[column].iloc[0])
        margin = margin_file.load().with_fields(**fields)
    base = baseline if (d["environment"] == baseline).any() else None
    sequential = None
    if "design" in rows and "round" in rows and rows["design"].fillna("").ne("").any():
        sequential, d["round"] = _designs(d, rows), rows["round"].to_numpy()
    table = stats.curve(d, "x", base, margin=margin, by=["item"],
                        higher_is_better=higher_is_better,
                        bounds="percent" if unit == "%" else "auto",
                        order={"environment": env_order(d["environment"].unique())},
                        sequential=sequential)
    table = table.assign(unit=unit, x_name=x or "")
    # trial values in two groups are two states of the machine: said, not averaged away
    from overhead.stats.modes import gap_test

    modes = {key: gap_test(g["value"].to_numpy(dtype=float))
             for key, g in d.groupby(["item", "environment", "x"], sort=False)}
    table["modes"] = [
        modes[(i, e, xv)].describe() if (i, e, xv) in modes and modes[(i, e, xv)].multimodal
        else "" for i, e, xv in zip(table["item"], table["environment"], table["x"], strict=True)]
    if "cell" in rows:
        d["cell"] = rows["cell"].astype("string").to_numpy()
        cells = d.groupby(["item", "environment", "x"])["cell"].agg(
            lambda c: ",".join(sorted(set(c.dropna()))))
        table["cells"] = [cells.get((i, e, xv), "") for i, e, xv in
                          zip(table["item"], table["environment"], table["x"], strict=True)]
    return table


def noise_html(live: Results, shown: int = 15) -> list[str]:
    """Return the report's noise section (HTML parts); write ``<out>/cell_spread.csv``.

    Per environment the trials flagged for interference (CPU time outside the trial's
    cgroup, or steal), re-run and excluded (:func:`overhead.campaign.analysis.isolation_summary`);
    then the between-trial spread of every cell and metric
    (:func:`overhead.campaign.analysis.cell_spread`, all of it in the CSV; a metric a trial
    reports per kernel is a row per kernel): the ``shown`` largest CVs of the judged
    quantities (the benchmarks' ``judge:`` entries, computed as the verdicts compute them; of
    all, in a campaign that judges none), and the cells whose trial means form two groups,
    which no mean describes (``shown`` of them, judged quantities first, the rest counted per
    benchmark).
    """
    import html

    from overhead.campaign import analysis

    parts = ["<h2>Noise: interference and the spread between trials</h2>"]
    if "status" not in live.trials or live.trials.empty:
        return [*parts, "<p>No trials.</p>"]
    summary = analysis.isolation_summary(live.trials)
    parts += ["<p>Before and after each trial the host's CPU time and the trial's own "
              "cgroup's were read: a trial during which something else (or the host's "
              "hypervisor, as steal) took more than the campaign's share of the CPUs was "
              "flagged, kept under <code>interfered/</code> and run again; one still flagged "
              "after its re-runs is excluded. What ran outside the cgroup counts the host's "
              "other tasks, not the kernel's own threads or interrupts, which a trial's own "
              "I/O keeps busy (their CPU-seconds are in trials.parquet as "
              "<code>noise_kernel_s</code> and <code>noise_irq_s</code>). The other "
              "environments of the host were paused during each trial.</p>",
              summary.to_html(index=False, na_rep="-")]
    t = live.trials
    if "noise_works_outside" in t and t["noise_works_outside"].notna().any():
        unjudged = (t.dropna(subset=["noise_works_outside"])
                    .groupby("benchmark", sort=True)["noise_works_outside"].first())
        parts.append("<p>Not judged on CPU time outside their cgroup (recorded; steal still "
                     "judged): " + "; ".join(f"{html.escape(str(b))}, because "
                                             f"{html.escape(str(why))}"
                                             for b, why in unjudged.items()) + ".</p>")
    if "client_cpus" in t and t["client_cpus"].notna().any():
        placed = (t.dropna(subset=["client_cpus"]).groupby("env_name", sort=True)
                  [["client_cpus", "server_cpus"]].agg(lambda c: ", ".join(sorted(set(map(str, c))))))
        parts.append("<p>Load generators on their server's host ran on CPUs of their own "
                     "(taskset; a VM's QEMU threads moved for the trial): " + "; ".join(
                         f"{html.escape(str(env))}: client on CPU {html.escape(r.client_cpus)}, "
                         f"server side on CPU {html.escape(r.server_cpus)}"
                         for env, r in placed.iterrows()) + ".</p>")
    try:
        spread = analysis.cell_spread(live.rows, live.trials, judges=_judges(live))
    except KeyError as exc:
        return [*parts, f"<p>The spread between trials is not computed: the tables lack the "
                        f"column {html.escape(str(exc))}.</p>"]
    live.out.mkdir(parents=True, exist_ok=True)
    spread.to_csv(live.out / "cell_spread.csv", index=False)
    if spread.empty:
        return parts
    cols = ["env_name", "benchmark", "params", "quantity", "n", "mean", "sd", "cv"]
    with_cv = spread.dropna(subset=["cv"])
    if with_cv.empty:
        return [*parts, f"<p>No cell has two trials or more (of {len(spread)} cell-metrics): "
                        "there is no spread between trials to show, and no interval from "
                        "trials.</p>"]
    # the quantities the verdicts stand on, when the campaign judges any (a secondary metric,
    # an error count zero in five trials of six, has the largest CVs and decides nothing)
    pool = with_cv[with_cv["quantity"].notna()] if with_cv["quantity"].notna().any() else with_cv
    if pool is with_cv:
        cols[3] = "metric"
    top = pool.sort_values("cv", ascending=False).head(shown)
    which = ("judged quantities (each computed as the verdicts compute it: the benchmark's "
             "<code>judge:</code> metric, filter and combination)") \
        if pool is not with_cv else "cell-metrics"
    parts += [f"<p>Between-trial coefficient of variation (SD of the trial means over their "
              f"mean) of {len(spread)} cell-metrics, median "
              f"{spread['cv'].median():.1%}; the {len(top)} largest of the {len(pool)} {which}, "
              f"median {pool['cv'].median():.1%} (all of them in "
              f"<code>cell_spread.csv</code>):</p>",
              top[cols].to_html(index=False, na_rep="-", float_format=lambda v: f"{v:.4g}")]
    multi = spread[spread["multimodal"].fillna(False)]
    untested = int(spread["multimodal"].isna().sum())
    parts.append(f"<p>Two groups of trial means (gap test at the 5% level, on logarithms; about "
                 f"one unimodal cell-metric in twenty is flagged by chance): {len(multi)} of "
                 f"{len(spread) - untested} tested"
                 + (f", {untested} with fewer than 4 trials not tested" if untested else "")
                 + ". A cell so flagged is two states of the machine; its mean and interval "
                 "describe neither.</p>")
    if len(multi):
        # the judged metrics first (what a verdict stands on), then by benchmark; the rest
        # counted per benchmark (a campaign of many environments flags hundreds)
        multi = multi.assign(_judged=multi["quantity"].notna())
        multi = multi.sort_values(["_judged", "benchmark", "env_name"],
                                  ascending=[False, True, True], kind="stable")
        parts.append("<ul>" + "".join(
            "<li>" + html.escape(" ".join(str(x) for x in (r.env_name, r.benchmark, r.params,
                                                            r.quantity if pd.notna(r.quantity)
                                                            else r.metric) if pd.notna(x) and str(x))
                                 + f": {r.modes}") + "</li>"
            for r in multi.head(shown).itertuples()) + "</ul>")
        rest = multi.iloc[shown:]
        if len(rest):
            per = rest.groupby("benchmark", sort=True).size()
            parts.append(f"<p>And {len(rest)} more (column <code>multimodal</code> of "
                         "<code>cell_spread.csv</code>): " + ", ".join(
                             f"{html.escape(str(b))} {k}" for b, k in per.items()) + ".</p>")
    return parts


def _judges(live: Results) -> dict[str, list]:
    """Return the campaign's judged quantities per benchmark (its ``judge:`` lists), else none.

    Read from the campaign the tidy folder keeps (``campaign.json``); a tidy folder without
    it falls back on the plan's decisions (each names its benchmark, metric and quantity).
    """
    import json

    from overhead.campaign.inventory import Judge

    out: dict[str, list] = {}
    path = live.tidy / "campaign.json"
    if path.is_file():
        try:
            benches = (json.loads(path.read_text(encoding="utf-8")) or {}).get("benchmarks") or {}
        except (OSError, ValueError):
            benches = {}
        for name, spec in benches.items():
            judges = [Judge(**j) for j in (spec or {}).get("judge") or () if isinstance(j, dict)]
            if judges:
                out[name] = judges
        if out:
            return out
    seen: set = set()
    for d in ((live.plan or {}).get("decisions") or {}).values():
        if isinstance(d, dict) and d.get("benchmark") and d.get("metric"):
            key = (d["benchmark"], d["metric"], d.get("quantity") or d["metric"])
            if key not in seen:
                seen.add(key)
                out.setdefault(key[0], []).append(Judge(metric=key[1], name=key[2]))
    return out


# ---------------------------------------------------------------------------------------------
# a comparison in words (the seed studies' tables, the explore notebook's table)

_LEVEL = 0.95


def pct_words(pct: float, low: float, high: float) -> str:
    """Say a percent difference with its interval ("+1.5% [-18.1, +21.9]"; a dash when unknown)."""
    if pd.isna(pct):
        return "-"
    return f"{pct:+.1f}% [{low:+.1f}, {high:+.1f}]" if pd.notna(low) else f"{pct:+.1f}% (no interval)"


def margin_words(low: float, high: float) -> str:
    """Say an equivalence margin in words (a dash when it is not known)."""
    if pd.isna(low) or pd.isna(high):
        return "-"
    return stats.Margin(float(low), float(high)).words()


def verdict_short(row: pd.Series) -> str:
    """Say a comparison row's verdict in a few words (its interval and margin are beside it).

    "equivalent", "slower, beyond the margin", "slower, not shown beyond the margin",
    "inconclusive: about 12 trials per side would decide it", "not tested: <why>", "baseline";
    a difference that does not survive Holm's correction across its item says so.
    """
    word = row.get("verdict")
    if not isinstance(word, str):
        return "-"
    if word in ("baseline", "equivalent"):
        return word
    if word == "not tested":
        detail = row.get("verdict_detail")
        return detail if isinstance(detail, str) and detail else word
    if word == "inconclusive":
        k = row.get("trials_needed")
        return (f"inconclusive: about {int(k)} trials per side would decide it" if pd.notna(k)
                else "inconclusive: the estimate sits on the margin")
    beyond = row.get("beyond_margin")
    beyond = beyond == "True" if isinstance(beyond, str) else \
        (beyond is not None and bool(pd.notna(beyond)) and bool(beyond))
    said = f"{word}, beyond the margin" if beyond else f"{word}, not shown beyond the margin"
    holm = row.get("p_difference_holm")
    if holm is not None and pd.notna(holm) and float(holm) >= 1 - _LEVEL:
        said += f" (not significant after Holm within the item, p={float(holm):.2g})"
    return said


def in_words(table: pd.DataFrame, *, extra: Iterable[str] = ()) -> pd.DataFrame:
    """Return a comparison table in words, for display and the report.

    One row per ([item, ]environment[, x]): n, mean [95% CI], the ratio to the baseline as a
    percent difference with the 95% interval the verdict is decided on, the equivalence margin,
    the verdict (and why its cells stopped getting trials, where the campaign's plan says), and
    the published value with its own difference from its baseline and its source.
    """
    if table.empty:
        return table

    def fmt(v: float) -> str:
        return "-" if pd.isna(v) else f"{v:.4g}"

    base = str(table["baseline"].dropna().iloc[0]) if "baseline" in table and \
        table["baseline"].notna().any() else BASELINE
    level = float(table["ci_level"].dropna().iloc[0]) if "ci_level" in table and \
        table["ci_level"].notna().any() else _LEVEL
    out = pd.DataFrame({"environment": table["environment"]})
    if "item" in table:
        out.insert(0, "item", table["item"])
    # a table read back from CSV has NaN where x was "" (no swept parameter)
    if "x" in table and table["x"].fillna("").astype(str).ne("").any():
        name = table["x_name"].iloc[0] if "x_name" in table else "x"
        out[name if isinstance(name, str) and name else "x"] = table["x"]
    for c in extra:
        out[c] = table[c]
    out["n"] = table["n"]
    modes = table["modes"] if "modes" in table else pd.Series([""] * len(table), index=table.index)
    out[f"mean [{100 * level:g}% CI]"] = [
        f"{md} {u}" if isinstance(md, str) and md else
        f"{fmt(m)} [{fmt(lo)}, {fmt(hi)}] {u}" if pd.notna(lo) else f"{fmt(m)} {u}"
        for m, lo, hi, u, md in zip(table["mean"], table["ci_low"], table["ci_high"],
                                    table["unit"], modes.fillna(""), strict=True)]
    is_base = table["verdict"].eq("baseline").fillna(False).to_numpy(dtype=bool)
    levels = pd.to_numeric(table["ratio_level"], errors="coerce") if "ratio_level" in table else \
        pd.Series(level, index=table.index)
    sequential = bool(((levels - level).abs() > 1e-9).any())
    # a sequential campaign's verdicts are read at their looks' levels: each cell says its own
    head = f"vs {base} [interval decided on]" if sequential else \
        f"vs {base} [{100 * level:g}% CI of the ratio]"
    out[head] = [
        "baseline" if b else pct_words(p, lo, hi) + (
            f" ({100 * lv:.4g}% sequential)" if sequential and pd.notna(lv) and pd.notna(lo)
            and abs(lv - level) > 1e-9 else "")
        for b, p, lo, hi, lv in zip(is_base, table["pct"], table["pct_low"], table["pct_high"],
                                    levels, strict=True)]
    out["margin"] = ["-" if b else margin_words(lo, hi) for b, lo, hi in
                     zip(is_base, table["margin_low_pct"], table["margin_high_pct"], strict=True)]
    out["verdict"] = [verdict_short(r) for _, r in table.iterrows()]
    if "stopped" in table and table["stopped"].fillna("").astype(str).ne("").any():
        out["why it stopped"] = table["stopped"].fillna("-")
    if "published_value" in table:
        out["published"] = [
            "-" if pd.isna(v) else f"{v:g} {u} ({e})"
            for v, u, e in zip(table["published_value"], table["published_unit"],
                               table["published_env"], strict=True)]
        out["published vs its baseline"] = [
            "-" if pd.isna(p) else f"{p:+.1f}%" for p in table["published_pct_vs_baseline"]]
        out["source"] = table["published_source"].fillna("-")
    return out


# ---------------------------------------------------------------------------------------------
# how the trials were spent: the stopping rule, where the variance lived, the budget


def campaign_of(live: Results):
    """Return the campaign as its last run resolved it (``campaign.json``), None without one."""
    from overhead.campaign.inventory import Campaign
    from overhead.campaign.layout import CAMPAIGN_RESOLVED

    path = live.tidy / CAMPAIGN_RESOLVED
    if not path.exists():
        return None
    try:
        return Campaign.model_validate(json.loads(path.read_text()))
    except (ValueError, TypeError):
        return None


def components_table(live: Results, campaign=None) -> pd.DataFrame:
    """Return where each judged quantity's variance lived in the campaign, per environment.

    For each judged quantity and each environment compared with the baseline: its trials and
    the baseline's at every point, paired by round (:func:`overhead.stats.components.components`:
    the state a round's trials share, what a trial adds, the paired and unpaired SDs, all on
    the log scale), the median over the points, and the seconds a trial took. Empty without a
    baseline or judged quantities.
    """
    from overhead.campaign import analysis
    from overhead.campaign.plan import cells as cells_of
    from overhead.stats.components import components

    campaign = campaign or campaign_of(live)
    if campaign is None or live.trials.empty or "cell" not in live.trials:
        return pd.DataFrame()
    base = analysis.baseline_of(campaign)
    values = analysis.judged_values(load_measurements(live), live.trials, campaign)
    if base is None or not values:
        return pd.DataFrame()
    cells = cells_of(campaign)
    done = live.trials[live.trials["status"] == "done"]
    secs = done.groupby("cell")["duration_s"].mean().to_dict()
    base_of = {(c.benchmark, json.dumps(c.params, sort_keys=True, default=str)): cid
               for cid, c in cells.items() if c.environment == base}
    per: dict[tuple, list] = {}
    for cid, c in cells.items():
        if c.environment == base:
            continue
        bid = base_of.get((c.benchmark, json.dumps(c.params, sort_keys=True, default=str)))
        for i, judge in enumerate(campaign.benchmarks[c.benchmark].judge):
            x, y = values.get((cid, i)), values.get((bid, i)) if bid else None
            if x is None or y is None:
                continue
            frame = pd.DataFrame([{"environment": e, "round": r, "value": v}
                                  for e, j in ((c.environment, x), (base, y))
                                  for r, v in j.by_round()])
            try:
                comp = components(frame, base, seconds=None)
            except stats.StatsError:
                continue
            per.setdefault((c.benchmark, judge.label, c.environment), []).append(
                (comp, secs.get(cid, math.nan)))
    rows = []
    for (bench, qty, env), found in per.items():
        comps = [f[0] for f in found]
        med = lambda vals: float(np.nanmedian(vals)) if len(vals) else math.nan  # noqa: E731
        rows.append({"benchmark": bench, "quantity": qty, "environment": env,
                     "points": len(comps), "rounds": int(med([c.rounds for c in comps])),
                     "shared_sd_pct": 100 * math.sqrt(med([c.shared for c in comps])),
                     "trial_sd_pct": 100 * math.sqrt(med([c.residual for c in comps])),
                     "paired_sd_pct": 100 * med([c.paired_sd for c in comps]),
                     "unpaired_sd_pct": 100 * med([c.unpaired_sd for c in comps]),
                     "seconds_per_trial": med([f[1] for f in found])})
    return pd.DataFrame(rows)


def load_measurements(live: Results) -> pd.DataFrame:
    """Return the campaign's tidy measurements (every row, as ingest wrote them)."""
    from overhead.tidy import load

    return load(live.tidy)


def spending_html(live: Results) -> list[str]:
    """Return the report's section on how the trials were spent (HTML parts).

    The stopping rule in words and what it did (rounds, how each comparison stopped, the
    sequential boundary), the budget (the runners' time, what re-runs of disturbed trials
    took of it, a host that got busy), and where the variance lived
    (:func:`components_table`, written as ``components.csv``).
    """
    import html

    from overhead.campaign.stopping import rule_of

    parts = ["<h2>How the trials were spent: the stopping rule, the budget, the variance</h2>"]
    campaign = campaign_of(live)
    rule = rule_of(campaign) if campaign is not None else None
    if rule is not None:
        parts.append(f"<p>{html.escape(rule.report_words(live.plan))}</p>")
    elif campaign is not None:
        parts.append(f"<p>A fixed count of trials per cell ({campaign.trials}); every verdict "
                     "is read off one 95% interval.</p>")
    t = live.trials
    if "duration_s" in t and len(t):
        dur = pd.to_numeric(t["duration_s"], errors="coerce")
        spent = float(dur.sum(skipna=True))
        rerun = float(dur[t["status"] == "interfered"].sum(skipna=True))
        excluded = float(dur[t["status"] == "excluded"].sum(skipna=True))
        parts.append(
            f"<p>Runner time: {spent / 60:.1f} min in {len(t)} attempts; re-runs of trials "
            f"disturbed by other work took {rerun / 60:.1f} min of it ({100 * rerun / spent:.0f}%)"
            + (f", and trials still disturbed after their re-runs (excluded) "
               f"{excluded / 60:.1f} min" if excluded else "") + ".</p>" if spent > 0 else
            "<p>No runner time recorded.</p>")
    for note in live.plan.get("notes") or []:
        if "busy" in str(note):
            parts.append(f"<p><b>{html.escape(str(note))}</b></p>")
    comps = components_table(live, campaign)
    if not comps.empty:
        from overhead import export

        export.write_table(comps, live.out, "components", formats=("csv",))
        shown = comps.assign(**{c: comps[c].map(lambda v: "-" if pd.isna(v) else f"{v:.1f}")
                                for c in ("shared_sd_pct", "trial_sd_pct", "paired_sd_pct",
                                          "unpaired_sd_pct", "seconds_per_trial")})
        parts += ["<p>Where the variance lived (log scale, % of the mean, median over each "
                  "quantity's points): <i>shared</i> is the machine's state that an "
                  "environment's trial and the baseline's of the same round share (a paired "
                  "design cancels it), <i>trial</i> what one trial adds; the paired SD is that "
                  "of a round's log ratio, the unpaired SD that of one trial. The design's "
                  "pairing: paired where the shared state makes the paired look narrower "
                  "(components.csv).</p>",
                  shown.to_html(index=False, na_rep="-")]
    return parts
