"""The pilot: where a campaign's variance lives, and the trial design it implies.

``overhead pilot FILE`` runs, before the campaign itself, a small campaign of its own
(``<name>-pilot``): for each benchmark with judged quantities, its first grid point in the
baseline and one other environment, at each of the sizes its ``size:`` names
(``{param: size_mib, candidates: [16, 64], range: [8, 512]}``), in ``rounds`` randomized
interleaved rounds after a warm-up round. From the trials it estimates each judged quantity's
variance components per size (:func:`overhead.stats.components.components`: the state a round's
trials share, what a trial adds, the paired and unpaired spreads, a trial's cost), fits how the
spread and the cost grow with the size (:func:`~overhead.stats.components.size_model`), and
chooses the size and pairing that decide the quantity's comparisons in the fewest minutes for
the campaign's looks (:func:`~overhead.stats.components.choose_design`), or says that none
can. A quantity whose spread cannot be brought inside its margin in the campaign's looks is
said so before the campaign spends a trial on it.

What it found goes to the pilot's tidy folder (``components.parquet``, ``design.json``) and to
a cache per host and benchmark (``data/pilot/<host>/<benchmark>-<hash>.json``: the host's CPU,
kernel and core count, and the benchmark's runner and parameters, hashed), so that a second run
on the same host reads it instead of measuring again.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from overhead.campaign.inventory import Campaign
from overhead.errors import InputError

__all__ = ["PilotResult", "analyse", "pilot_campaign", "run_pilot"]


def _first(value):
    return value[0] if isinstance(value, list) else value


def pilot_environments(campaign: Campaign, environments: list[str] | None = None) -> list[str]:
    """Return the pilot's environments: the baseline and one other.

    The other is the one given, or the first that is not a VM (the containers are what a
    campaign's budget is mostly spent deciding).
    """
    from overhead.campaign.stopping import rule_of

    rule = rule_of(campaign)
    base = rule.baseline if rule is not None and rule.baseline else (
        "native" if "native" in campaign.environments else next(iter(campaign.environments)))
    if environments:
        unknown = [e for e in environments if e not in campaign.environments]
        if unknown:
            raise InputError(f"pilot: unknown environment(s) {', '.join(unknown)} (environments: "
                             f"{', '.join(campaign.environments)})")
        return list(dict.fromkeys([base, *environments]))
    other = next((n for n, e in campaign.environments.items() if n != base and e.kind != "vm"),
                 next((n for n in campaign.environments if n != base), None))
    return [base] + ([other] if other else [])


def pilot_campaign(campaign: Campaign, *, rounds: int = 4, environments: list[str] | None = None,
                   benchmarks: list[str] | None = None) -> Campaign:
    """Return the pilot of a campaign (a campaign of its own, ``<name>-pilot``).

    Parameters
    ----------
    campaign : Campaign
        The campaign.
    rounds : int
        Measured rounds (after one warm-up round).
    environments : list of str, optional
        Environments besides the baseline (default: the first that is not a VM).
    benchmarks : list of str, optional
        Benchmarks to pilot (default: every one with judged quantities).

    Returns
    -------
    Campaign
        Each benchmark's first grid point, with its ``size`` parameter swept over the
        candidates; a fixed count of ``rounds``, no stopping rule.
    """
    envs = pilot_environments(campaign, environments)
    names = [b for b, bench in campaign.benchmarks.items() if bench.judge]
    if benchmarks:
        unknown = [b for b in benchmarks if b not in campaign.benchmarks]
        if unknown:
            raise InputError(f"pilot: unknown benchmark(s) {', '.join(unknown)}")
        names = [b for b in names if b in benchmarks]
    if not names:
        raise InputError(f"pilot: campaign {campaign.name} has no benchmark with judge: "
                         "quantities (nothing to design for)")
    data = campaign.model_dump(mode="python", exclude_none=True, exclude={"path", "sha256"})
    data.pop("stopping", None)
    data.update(name=f"{campaign.name}-pilot", trials=int(rounds), warmup=1)
    data["environments"] = {n: e for n, e in data["environments"].items() if n in envs}
    for e in data["environments"].values():
        e.pop("skip", None)
        e.pop("benchmarks", None)
    benches = {}
    for name in names:
        b = dict(data["benchmarks"][name])
        params = {k: _first(v) for k, v in b["params"].items()}
        size = campaign.benchmarks[name].size
        if size is not None:
            params[size.param] = [float(c) if isinstance(c, float) and not c.is_integer() else
                                  int(c) for c in size.candidates]
        b["params"] = params
        b.pop("environments", None)
        b.pop("trials", None)
        benches[name] = b
    data["benchmarks"] = benches
    out = Campaign.model_validate(data)
    digest = hashlib.sha256(f"{campaign.sha256}:pilot:{rounds}:{envs}:{names}".encode()).hexdigest()
    return out.model_copy(update={"path": None, "sha256": digest})


@dataclass
class PilotResult:
    """What a pilot found: components per (benchmark, quantity, size), and a design each."""

    campaign: str
    components: pd.DataFrame
    designs: dict[str, dict] = field(default_factory=dict)

    def text(self) -> str:
        """Return the findings as the lines ``overhead pilot`` prints."""
        lines = [f"pilot of {self.campaign}: variance components (log scale, % of the mean) "
                 "and the trial design each judged quantity gets"]
        c = self.components
        for (bench, qty), g in c.groupby(["benchmark", "quantity"], sort=False):
            lines.append(f"  {bench} [{qty}]")
            for r in g.itertuples():
                lines.append(
                    f"    {r.param}={r.size:g}: rounds {r.rounds}, shared {100 * math.sqrt(r.shared):.1f}%, "
                    f"trial {100 * math.sqrt(r.residual):.1f}%, paired SD {100 * r.paired_sd:.1f}%, "
                    f"unpaired SD {100 * r.unpaired_sd:.1f}%, {r.seconds:.1f} s a trial ({r.method})")
            d = self.designs.get(f"{bench}#{qty}")
            if d:
                lines.append(f"    design: {d['why']}")
        return "\n".join(lines)


def analyse(campaign: Campaign, pilot: Campaign, tidy: Path) -> PilotResult:
    """Estimate the components and choose the designs from an ingested pilot.

    Parameters
    ----------
    campaign : Campaign
        The campaign the pilot is for (its margins, looks, and environments per point).
    pilot : Campaign
        The pilot campaign (:func:`pilot_campaign`).
    tidy : Path
        The pilot's tidy folder.

    Returns
    -------
    PilotResult
    """
    from overhead import margins as margin_file
    from overhead.campaign import analysis
    from overhead.campaign.plan import cells as cells_of
    from overhead.campaign.stopping import rule_of
    from overhead.stats.components import choose_design, components, size_model
    from overhead.stats.sequential import Design
    from overhead.tidy import load

    trials = pd.read_parquet(tidy / "trials.parquet")
    rows = load(tidy)
    values = analysis.judged_values(rows, trials, pilot)
    cells = cells_of(pilot)
    envs = pilot_environments(campaign, [e for e in pilot.environments][1:] or None)
    base = envs[0]
    done = trials[(trials["status"] == "done") & ~trials["warmup"].astype(bool)]
    harness = 0.0
    if "started_at" in done and "finished_at" in done:
        wall = (pd.to_datetime(done["finished_at"]) - pd.to_datetime(done["started_at"])).dt.total_seconds()
        harness = max(float((wall - done["duration_s"]).median()), 0.0)
    seconds = (done.groupby("cell")["duration_s"].mean() + harness).to_dict()
    rule = rule_of(campaign)
    table = margin_file.load()
    records, designs = [], {}
    for bname, bench in pilot.benchmarks.items():
        spec = campaign.benchmarks[bname].size
        for i, judge in enumerate(bench.judge):
            by_size = {}
            for c in cells.values():
                if c.benchmark != bname or c.environment != base:
                    continue
                size = c.params.get(spec.param) if spec else None
                frame = []
                for cid2, c2 in cells.items():
                    if c2.benchmark == bname and c2.params == c.params:
                        j = values.get((cid2, i))
                        for r, v in (j.by_round() if j else []):
                            frame.append({"environment": c2.environment, "round": r, "value": v,
                                          "seconds": seconds.get(cid2, math.nan)})
                if not frame:
                    continue
                try:
                    comp = components(pd.DataFrame(frame), base)
                except Exception as exc:  # noqa: BLE001 - said per quantity, the rest goes on
                    records.append({"benchmark": bname, "quantity": judge.label,
                                    "param": spec.param if spec else "", "size": size,
                                    "error": str(exc)})
                    continue
                by_size[size] = comp
                records.append({"benchmark": bname, "quantity": judge.label,
                                "param": spec.param if spec else "",
                                "size": float(size) if size is not None else math.nan,
                                **comp.to_json(), "error": None})
            if not by_size:
                continue
            margin = table.lookup(benchmark=bname, tool=bench.runner, metric=judge.metric,
                                  item=judge.label)
            # the looks of a non-baseline cell of the campaign at this benchmark (its rule's)
            cell = next((c for c in cells_of(campaign).values()
                         if c.benchmark == bname and c.environment != base), None)
            looks = rule.design_of(cell) if rule is not None and cell is not None and \
                rule.design_of(cell) is not None else Design((3, 6, 12))
            envs_here = sorted({c.environment for c in cells_of(campaign).values()
                                if c.benchmark == bname})
            key = f"{bname}#{judge.label}"
            # the point's share of the campaign's time budget (its cells among all)
            budget = None
            if rule is not None and getattr(rule.spec, "max_minutes", None):
                budget = float(rule.spec.max_minutes) * len(envs_here) / max(len(cells_of(campaign)), 1)
            if spec is not None and len(by_size) >= 2:
                model = size_model(by_size, spec.param)
                lo, hi = spec.range if spec.range else (None, None)
                d = choose_design(model, margin, looks, cells=len(envs_here), lo=lo, hi=hi,
                                  budget_minutes=budget)
                designs[key] = {**d.to_json(), "model": model.to_json(), "cells": len(envs_here),
                                "margin": margin.words(), "looks": list(looks.looks)}
            else:
                comp = next(iter(by_size.values()))
                from overhead.stats.sequential import looks_needed

                best = []
                for pairing in ("none", "rounds"):
                    if pairing == "rounds" and looks.looks[0] < 3:
                        continue
                    dd = Design(looks.looks, looks.alpha, looks.spending, pairing)
                    sd = comp.paired_sd if pairing == "rounds" else comp.unpaired_sd
                    n = looks_needed(0.0, sd, margin, dd)
                    best.append((n if n is not None else math.inf, sd, pairing, n))
                n_eff, sd, pairing, n = min(best)
                why = (f"at its one size, {'paired by round' if pairing == 'rounds' else 'unpaired'}: "
                       f"{100 * sd:.1f}% per trial, " + (f"the look at {n} trials a side expected to "
                                                        f"decide {margin.words()}" if n else
                                                        f"no planned look decides {margin.words()}"))
                designs[key] = {"size": None, "pairing": pairing, "sd": sd, "n": n,
                                "seconds": comp.seconds, "why": why, "margin": margin.words(),
                                "cells": len(envs_here), "looks": list(looks.looks)}
    return PilotResult(campaign.name, pd.DataFrame(records), designs)


def cache_key(campaign: Campaign, facts: dict, benchmark: str) -> tuple[str, str]:
    """Return (host folder, file stem) of a benchmark's cached pilot on a host."""
    host = hashlib.sha256(json.dumps({k: facts.get(k) for k in ("cpu_model", "kernel", "cores")},
                                     sort_keys=True, default=str).encode()).hexdigest()[:12]
    bench = campaign.benchmarks[benchmark]
    params = {k: v for k, v in bench.params.items() if not bench.size or k != bench.size.param}
    digest = hashlib.sha256(json.dumps({"runner": bench.runner, "params": params},
                                       sort_keys=True, default=str).encode()).hexdigest()[:12]
    return host, f"{benchmark}-{digest}"


def run_pilot(campaign: Campaign, *, rounds: int = 4, environments: list[str] | None = None,
              benchmarks: list[str] | None = None, raw_root: Path | None = None,
              tidy_root: Path | None = None, cache: Path | None = None,
              progress: bool = True) -> PilotResult:
    """Run (or resume) a campaign's pilot, ingest it, and write what it found.

    Returns
    -------
    PilotResult
        Also written: ``<tidy>/<name>-pilot/components.parquet`` and ``design.json``, and one
        cache file per benchmark under ``cache`` (default ``data/pilot``).
    """
    from overhead.campaign.durable import write_atomic
    from overhead.campaign.execute import run_campaign
    from overhead.campaign.ingest import ingest_campaign
    from overhead.campaign.layout import facts_path
    from overhead.paths import DATA, TIDY

    pilot = pilot_campaign(campaign, rounds=rounds, environments=environments,
                           benchmarks=benchmarks)
    raw = (raw_root or DATA / "raw") / pilot.name
    run_campaign(pilot, raw_root=raw_root, progress=progress)
    tidy = (tidy_root or TIDY) / pilot.name
    ingest_campaign(raw, tidy)
    result = analyse(campaign, pilot, tidy)
    result.components.to_parquet(tidy / "components.parquet", index=False)
    write_atomic(tidy / "design.json", json.dumps(result.designs, indent=1, default=str))
    base = next(iter(pilot.environments))
    fpath = facts_path(raw, base)
    facts = json.loads(fpath.read_text()) if fpath.exists() else {}
    folder = cache or DATA / "pilot"
    for bname in pilot.benchmarks:
        host, stem = cache_key(campaign, facts, bname)
        mine = {k: v for k, v in result.designs.items() if k.split("#", 1)[0] == bname}
        comps = result.components[result.components["benchmark"] == bname]
        path = folder / host / f"{stem}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps({"campaign": campaign.name, "benchmark": bname,
                                       "host": {k: facts.get(k) for k in ("cpu_model", "kernel", "cores")},
                                       "components": comps.to_dict(orient="records"),
                                       "designs": mine}, indent=1, default=str))
    return result
