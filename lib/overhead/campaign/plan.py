"""The planner: a campaign's grid expanded into trials, in randomized interleaved rounds.

Pure: no SSH, no clock. A *cell* is one (environment, benchmark, parameter combination); a
*round* runs every cell once, in a fresh order drawn from the campaign's seed and the round's
number (randomized multiple interleaved trials, Abedi & Brecht, ICPE 2017), so that a slow
drift of the machine spreads over every environment instead of biasing the one that ran last.
The first ``warmup`` rounds are warm-ups, flagged and kept.

A trial's id is a hash of its environment, benchmark, expanded parameters and round: the same
file always gives the same plan, and a resumed campaign recognises its finished trials.

With a stopping rule the plan starts with ``warmup + min_rounds`` rounds; :func:`extend` adds
a round for each cell that needs more: under the precision rule while its confidence interval
is wider than the target, under the verdicts rule while a comparison it takes part in is
undecided (:func:`overhead.stats.decide` against the margins of ``data/reference/margins.yml``),
until ``max_rounds`` (or ``max_minutes``), and records in ``Plan.stops`` why each cell stopped
and in ``Plan.decisions`` how each comparison stood when it stopped. A new round is drawn from
the seed and its own number, so it never reorders the rounds before it, and the same data give
the same extension: a resumed campaign re-derives exactly the rounds it had run.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from overhead.campaign.inventory import Campaign

__all__ = ["DECIDED", "Cell", "Judged", "Plan", "PlannedTrial", "compare_cells", "extend",
           "judged_value", "make_plan", "stopping_decision"]


def _digest(prefix: str, payload: dict) -> str:
    """Return ``prefix-`` and 12 hex digits of the SHA-256 of ``payload`` as canonical JSON."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return f"{prefix}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


@dataclass(frozen=True)
class Cell:
    """One (environment, benchmark, parameters) combination of the grid."""

    id: str
    environment: str
    benchmark: str
    runner: str
    params: dict
    host: str


@dataclass(frozen=True)
class PlannedTrial:
    """One trial: a cell in a round, at a position of the plan.

    ``position`` counts over the whole plan; the executor runs each host's trials in that
    order. ``warmup`` is True for the first ``warmup`` rounds.
    """

    id: str
    cell: str
    environment: str
    benchmark: str
    runner: str
    params: dict
    host: str
    round: int
    position: int
    warmup: bool
    timeout: float

    def to_json(self) -> dict:
        """Return the trial as a JSON-ready dict."""
        return asdict(self)


@dataclass
class Plan:
    """The ordered trials of a campaign, its cells, and why cells stopped (stopping rule).

    ``decisions`` (verdicts rule) maps ``<cell id>#<quantity>`` of each comparison (the
    non-baseline cell) to how it stood when it stopped: environment, baseline, benchmark,
    params, quantity, verdict, n, n_baseline, ratio, low, high, margin, words and why.
    """

    campaign: str
    seed: int
    cells: dict[str, Cell]
    trials: list[PlannedTrial]
    rounds: int
    stops: dict[str, str] = field(default_factory=dict)
    decisions: dict[str, dict] = field(default_factory=dict)

    def by_id(self) -> dict[str, PlannedTrial]:
        """Return trial id -> trial."""
        return {t.id: t for t in self.trials}

    def to_json(self) -> dict:
        """Return the plan as a JSON-ready dict (``overhead plan --format json``)."""
        return {"campaign": self.campaign, "seed": self.seed, "rounds": self.rounds,
                "cells": {k: asdict(v) for k, v in self.cells.items()},
                "trials": [t.to_json() for t in self.trials], "stops": self.stops,
                "decisions": self.decisions}


def _grid(params: Mapping) -> list[dict]:
    """Expand a parameter mapping (lists are axes) into every combination, in file order."""
    names = list(params)
    axes = [v if isinstance(v, list) else [v] for v in params.values()]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes)]


def cells(campaign: Campaign) -> dict[str, Cell]:
    """Return the campaign's cells (environment x benchmark x parameter grid), in file order.

    Parameters
    ----------
    campaign : Campaign
        The campaign.

    Returns
    -------
    dict of str to Cell
        Cell id -> cell. The id hashes the environment, benchmark, runner and parameters.
        Points an environment ``skip`` s are left out.
    """
    out: dict[str, Cell] = {}
    for bname, bench in campaign.benchmarks.items():
        for ename in campaign.environments_of(bname):
            for params in _grid(bench.params):
                if campaign.environments[ename].skips(bname, params):
                    continue
                cid = _digest("c", {"environment": ename, "benchmark": bname,
                                    "runner": bench.runner, "params": params})
                out[cid] = Cell(cid, ename, bname, bench.runner, params,
                                campaign.environments[ename].host)
    return out


def _round(campaign: Campaign, cell_ids: Sequence[str], all_cells: Mapping[str, Cell],
           number: int, start: int) -> list[PlannedTrial]:
    """Return one round over ``cell_ids`` in the order drawn from (seed, round number)."""
    order = list(cell_ids)
    # a fresh generator per round, seeded by the campaign's seed and the round's number, so
    # that adding a round (stopping rule) never reorders the rounds before it
    random.Random(f"{campaign.seed}:{number}").shuffle(order)
    trials = []
    for offset, cid in enumerate(order):
        c = all_cells[cid]
        bench = campaign.benchmarks[c.benchmark]
        tid = _digest("t", {"environment": c.environment, "benchmark": c.benchmark,
                            "runner": c.runner, "params": c.params, "round": number})
        trials.append(PlannedTrial(tid, cid, c.environment, c.benchmark, c.runner, c.params,
                                   c.host, number, start + offset, number <= campaign.warmup,
                                   bench.timeout or campaign.timeout))
    return trials


def make_plan(campaign: Campaign) -> Plan:
    """Expand a campaign into its plan.

    Parameters
    ----------
    campaign : Campaign
        The campaign.

    Returns
    -------
    Plan
        ``warmup`` warm-up rounds, then ``trials`` measured rounds (with a stopping rule:
        ``stopping.min_rounds``), each round every cell once in a seeded random order; a
        benchmark with its own ``trials`` has its cells in that many measured rounds (more
        rounds, with only its cells, when it asks for more than the campaign).
    """
    all_cells = cells(campaign)
    if campaign.stopping:
        wanted = dict.fromkeys(all_cells, campaign.stopping.min_rounds)
    else:  # a benchmark's own count, else the campaign's
        wanted = {cid: campaign.benchmarks[c.benchmark].trials or campaign.trials
                  for cid, c in all_cells.items()}
    rounds = campaign.warmup + max(wanted.values(), default=0)
    trials: list[PlannedTrial] = []
    for number in range(1, rounds + 1):
        # warm-up rounds run every cell; a measured round those that still want a trial
        ids = [cid for cid in all_cells if number - campaign.warmup <= wanted[cid]]
        trials += _round(campaign, ids, all_cells, number, len(trials))
    stops = {} if campaign.stopping else {c: f"fixed count of {n} trials"
                                          for c, n in wanted.items()}
    if campaign.stopping and campaign.stopping.rule == "verdicts":
        n = campaign.stopping.min_rounds
        stops = {cid: f"fixed count of {n} trials (no judged quantity, no comparison)"
                 for cid, c in all_cells.items() if not _in_comparison(campaign, all_cells, c)}
    return Plan(campaign.name, campaign.seed, all_cells, trials, rounds, stops)


def stopping_decision(values: Sequence[float], target: float, level: float = 0.95
                      ) -> tuple[bool, str]:
    """Decide whether a cell's measured values are precise enough.

    Parameters
    ----------
    values : sequence of float
        The cell's measured (non-warm-up) values of the stopping metric.
    target : float
        Largest acceptable CI half-width as a fraction of the mean (0.05 = 5%).
    level : float
        Confidence level.

    Returns
    -------
    (bool, str)
        Whether the cell is done, and the half-width found, in words.
    """
    from overhead.stats.sampling import precision

    p = precision(list(values), target_pct=100 * target, level=level)
    if p.reached is None:  # too few values, NaN or a zero mean
        return False, f"half-width unknown after {p.n} trials ({p.reason})"
    words = f"half-width {p.rel_half_width_pct:.2f}% of the mean after {p.n} trials"
    return bool(p.reached), words


@dataclass(frozen=True)
class Judged:
    """A cell's values of one judged quantity: one per measured trial, and its direction."""

    values: tuple[float, ...]
    higher_is_better: bool | None = None


def judged_value(rows, judge) -> tuple[float | None, bool | None]:
    """Return one trial's value of a judged quantity, and its better direction.

    Parameters
    ----------
    rows : pandas.DataFrame
        The trial's tidy rows (:func:`overhead.runners.read_trial`'s measurements).
    judge : overhead.campaign.inventory.Judge
        The quantity: metric, parameter filters, how rows combine.

    Returns
    -------
    (float or None, bool or None)
        The value (None when no row matches or a matching value is missing: never 0) and the
        rows' ``higher_is_better`` when they agree on one.
    """
    import math

    import pandas as pd

    sel = rows[rows["metric"] == judge.metric]
    for name, want in judge.where.items():
        col = name if name.startswith("p_") else f"p_{name}"
        if col not in sel.columns:
            if want is None:
                continue
            return None, None
        sel = sel[sel[col].isna()] if want is None else sel[sel[col].astype(str) == str(want)]
    if sel.empty:
        return None, None
    vals = pd.to_numeric(sel["value"], errors="coerce")
    if vals.isna().any():
        return None, None
    value = float(vals.sum() if judge.combine == "sum" else vals.mean())
    if not math.isfinite(value):
        return None, None
    hib = sel["higher_is_better"].dropna().unique() if "higher_is_better" in sel else []
    return value, (bool(hib[0]) if len(hib) == 1 else None)


def _in_comparison(campaign: Campaign, cells_: Mapping[str, Cell], cell: Cell) -> bool:
    """Whether a cell takes part in a judged comparison (verdicts rule)."""
    if not campaign.benchmarks[cell.benchmark].judge:
        return False
    base = campaign.stopping.baseline
    others = [c for c in cells_.values() if c.benchmark == cell.benchmark and c.params == cell.params]
    if cell.environment == base:
        return any(c.environment != base for c in others)
    return any(c.environment == base for c in others)


def _precision_extend(plan: Plan, campaign: Campaign, values: Mapping[str, Sequence[float]],
                      stops: dict[str, str]) -> list[str]:
    rule = campaign.stopping
    measured = plan.rounds - campaign.warmup
    running = []
    for cid in plan.cells:
        if cid in stops:
            continue
        done, words = stopping_decision(values.get(cid, ()), rule.target, rule.level)
        if done:
            stops[cid] = f"target {100 * rule.target:g}% met: {words}"
        elif measured >= rule.max_rounds:
            stops[cid] = f"cap of {rule.max_rounds} rounds reached: {words}"
        else:
            running.append(cid)
    return running


def compare_cells(campaign: Campaign, cells_: Mapping[str, Cell], values: Mapping[tuple[str, int], Judged],
                  baseline: str, *, level: float = 0.95, skip: Sequence[str] = ()):
    """Decide every judged comparison of the cells with the baseline's cell of the same point.

    Parameters
    ----------
    campaign : Campaign
        The campaign (its benchmarks' ``judge`` quantities).
    cells_ : mapping
        Cell id -> Cell.
    values : mapping
        (cell id, index of the judged quantity) -> :class:`Judged`.
    baseline : str
        The baseline environment.
    level : float
        Level of the intervals.
    skip : sequence of str
        Comparison keys not to decide again.

    Yields
    ------
    (str, str, str, dict)
        The comparison's key (``<cell id>#<quantity>``), the cell, the baseline's cell, and its
        record: environment, baseline, benchmark, params, quantity, metric, verdict, n,
        n_baseline, ratio, low, high, method, margin, margin_low_pct, margin_high_pct,
        margin_source, margin_reason, trials_needed, words.
    """
    from overhead import margins as margin_file
    from overhead.stats import decide

    table = margin_file.load()
    base_of = {(c.benchmark, json.dumps(c.params, sort_keys=True, default=str)): cid
               for cid, c in cells_.items() if c.environment == baseline}
    for cid, c in cells_.items():
        bench = campaign.benchmarks[c.benchmark]
        if c.environment == baseline or not bench.judge:
            continue
        bid = base_of.get((c.benchmark, json.dumps(c.params, sort_keys=True, default=str)))
        if bid is None:
            continue
        for i, judge in enumerate(bench.judge):
            key = f"{cid}#{judge.label}"
            if key in skip:
                continue
            x, y = values.get((cid, i)), values.get((bid, i))
            xs, ys = (x.values if x else ()), (y.values if y else ())
            margin = table.lookup(benchmark=c.benchmark, tool=c.runner, metric=judge.metric,
                                  item=judge.label)
            v = decide(list(xs), list(ys), margin, level,
                       higher_is_better=x.higher_is_better if x else None)
            yield key, cid, bid, {
                "environment": c.environment, "baseline": baseline, "benchmark": c.benchmark,
                "params": c.params, "quantity": judge.label, "metric": judge.metric,
                "verdict": v.verdict, "n": len(xs), "n_baseline": len(ys),
                "ratio": v.interval.ratio, "low": v.interval.low, "high": v.interval.high,
                "method": v.interval.method, "margin": margin.words(),
                "margin_low_pct": margin.low_pct, "margin_high_pct": margin.high_pct,
                "margin_source": margin.source, "margin_reason": margin.reason,
                "trials_needed": v.trials_needed,
                "words": v.words()}


#: Verdicts that decide a comparison (the stopping rule stops on them).
DECIDED = ("equivalent", "faster", "slower", "higher", "lower")


def _verdict_extend(plan: Plan, campaign: Campaign, values: Mapping[tuple[str, int], Judged],
                    stops: dict[str, str], decisions: dict[str, dict],
                    elapsed_minutes: float | None) -> list[str]:
    rule = campaign.stopping
    measured = plan.rounds - campaign.warmup
    capped = None
    if measured >= rule.max_rounds:
        capped = f"cap of {rule.max_rounds} rounds reached"
    elif rule.max_minutes is not None and elapsed_minutes is not None \
            and elapsed_minutes >= rule.max_minutes:
        capped = f"time budget of {rule.max_minutes:g} min spent ({elapsed_minutes:.1f} min)"
    # Every comparison is judged again on all the data so far, decided ones too: a baseline cell
    # keeps running for its other comparisons, and its later trials can leave a comparison
    # decided earlier (on fewer baseline trials) inconclusive; that comparison reopens and its
    # environment's cell runs again (within the caps), so the record of why it stopped always
    # describes the final data.
    open_: dict[str, bool] = {}  # cell -> one of its comparisons still undecided
    for key, cid, bid, rec in compare_cells(campaign, plan.cells, values, rule.baseline,
                                            level=rule.level):
        rec["stopped"] = False
        if rec["verdict"] in DECIDED:
            rec.update(stopped=True, why=f"decided after {rec['n']} trials: {rec['words']}")
        elif capped:
            rec.update(stopped=True, why=f"{capped}: {rec['words']}")
        before = decisions.get(key)
        if not rec["stopped"] and before is not None and before.get("stopped"):
            rec["reopened"] = int(before.get("reopened", 0)) + 1
        elif before is not None and "reopened" in before:
            rec["reopened"] = before["reopened"]
        decisions[key] = rec
        if not rec["stopped"]:
            open_[cid] = open_[bid] = True
    running = []
    n_of = {}
    for t in plan.trials:
        if not t.warmup:
            n_of[t.cell] = n_of.get(t.cell, 0) + 1
    for cid, c in plan.cells.items():
        if open_.get(cid):
            stops.pop(cid, None)
            running.append(cid)
            continue
        mine = [f"{r['environment']} vs {r['baseline']} [{r['quantity']}]: {r['why']}"
                for k, r in decisions.items() if k.split("#", 1)[0] == cid]
        if cid in stops and (c.environment == rule.baseline or not mine):
            continue  # a stopped baseline, or a cell without a judged comparison (a fixed count)
        if c.environment == rule.baseline:
            why = f"after {n_of.get(cid, 0)} trials: every comparison with it stopped"
        else:
            why = "; ".join(mine) or f"after {n_of.get(cid, 0)} trials: no comparison"
        stops[cid] = why
    return running


def extend(plan: Plan, campaign: Campaign, values: Mapping, *,
           elapsed_minutes: float | None = None) -> Plan:
    """Add one round for the cells that need more trials (the stopping rule).

    Parameters
    ----------
    plan : Plan
        The plan so far (every trial of it executed).
    campaign : Campaign
        The campaign (with ``stopping``).
    values : mapping
        Precision rule: cell id -> its measured values of ``stopping.metric`` (warm-ups
        excluded). Verdicts rule: (cell id, index of the benchmark's judged quantity) ->
        :class:`Judged` (one value per measured trial).
    elapsed_minutes : float or None
        Wall time of this run so far (the verdicts rule's ``max_minutes``).

    Returns
    -------
    Plan
        The same plan when every cell has stopped (``stops`` says why for each, ``decisions``
        how each comparison stood), else the plan with one more round over the cells still
        running.
    """
    rule = campaign.stopping
    if rule is None:
        return plan
    stops = dict(plan.stops)
    decisions = {k: dict(v) for k, v in plan.decisions.items()}
    if rule.rule == "verdicts":
        running = _verdict_extend(plan, campaign, values, stops, decisions, elapsed_minutes)
    else:
        running = _precision_extend(plan, campaign, values, stops)
    if not running:
        return Plan(plan.campaign, plan.seed, plan.cells, plan.trials, plan.rounds, stops, decisions)
    number = plan.rounds + 1
    added = _round(campaign, running, plan.cells, number, len(plan.trials))
    return Plan(plan.campaign, plan.seed, plan.cells, plan.trials + added, number, stops, decisions)
