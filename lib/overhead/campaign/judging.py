"""Judged quantities and the comparisons decided on them: what a verdict is read from.

A benchmark's ``judge:`` list names the quantities its cells are compared on (HPCC's Linpack,
STREAM Triad and RandomAccess rows). :func:`judged_value` reads one trial's value of one of
them from its tidy rows; :class:`Judged` holds a cell's values with the round each came from;
:func:`compare_cells` decides every comparison of a cell with the baseline's cell of the same
point. With a sequential design (a verdicts stopping rule) a comparison is decided by
:func:`overhead.stats.sequential.replay` over its rounds: the same looks, levels and pairing
the rule used while the campaign ran, so reading a finished campaign gives the verdict the
rule stopped on; without one (a fixed count) by one look at the data in hand
(:func:`overhead.stats.decide`, 95%).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from overhead.campaign.inventory import Campaign, Judge

__all__ = ["DECIDED", "Judged", "compare_cells", "judged_value", "point_key"]

#: Verdicts that decide a comparison (a stopping rule stops on them).
DECIDED = ("equivalent", "faster", "slower", "higher", "lower")


@dataclass(frozen=True)
class Judged:
    """A cell's values of one judged quantity: one per measured trial, its round, its direction.

    ``rounds[i]`` is the round ``values[i]`` was measured in (empty when unknown: a caller
    that has only the values; a sequential decision then cannot be replayed).
    """

    values: tuple[float, ...]
    higher_is_better: bool | None = None
    rounds: tuple[int, ...] = ()

    def add(self, value: float, round_: int, higher_is_better: bool | None) -> Judged:
        """Return these values with one more (the first direction seen is kept)."""
        hib = self.higher_is_better if self.values else higher_is_better
        return Judged((*self.values, float(value)), hib, (*self.rounds, int(round_)))

    def by_round(self) -> list[tuple[int, float]]:
        """Return (round, value) pairs; values without rounds count as rounds 1, 2, ..."""
        rounds = self.rounds if len(self.rounds) == len(self.values) else \
            tuple(range(1, len(self.values) + 1))
        return list(zip(rounds, self.values, strict=True))


def judged_rows(rows, judge: Judge):
    """Return the rows of ``judge``'s metric that match its ``where`` filter (parameter columns).

    ``{kernel: hpl}`` matches ``p_kernel == "hpl"`` (compared as text); ``null`` matches a
    missing value or a missing column; a filter on a column the rows lack matches nothing.
    """
    sel = rows[rows["metric"] == judge.metric]
    for name, want in judge.where.items():
        col = name if name.startswith("p_") else f"p_{name}"
        if col not in sel.columns:
            if want is None:
                continue
            return sel.iloc[0:0]
        sel = sel[sel[col].isna()] if want is None else sel[sel[col].astype(str) == str(want)]
    return sel


def judged_value(rows, judge: Judge) -> tuple[float | None, bool | None]:
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
    import pandas as pd

    sel = judged_rows(rows, judge)
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


def point_key(benchmark: str, params: Mapping) -> tuple[str, str]:
    """Return the key of a grid point (benchmark, parameters as canonical JSON)."""
    return benchmark, json.dumps(dict(params), sort_keys=True, default=str)


def compare_cells(campaign: Campaign, cells_: Mapping, values: Mapping, baseline: str, *,
                  level: float = 0.95, skip: Sequence[str] = (),
                  design_of: Callable | None = None) -> Iterator[tuple[str, str, str, dict]]:
    """Decide every judged comparison of the cells with the baseline's cell of the same point.

    Parameters
    ----------
    campaign : Campaign
        The campaign (its benchmarks' ``judge`` quantities).
    cells_ : mapping
        Cell id -> :class:`~overhead.campaign.plan.Cell`.
    values : mapping
        (cell id, index of the judged quantity) -> :class:`Judged`.
    baseline : str
        The baseline environment.
    level : float
        Level of a fixed-n interval (no ``design_of``).
    skip : sequence of str
        Comparison keys not to decide.
    design_of : callable or None
        Cell -> its :class:`~overhead.stats.sequential.Design` (a verdicts stopping rule's):
        the comparison is then replayed look by look over its rounds; None: one look at all
        the values (:func:`overhead.stats.decide`).

    Yields
    ------
    (str, str, str, dict)
        The comparison's key (``<cell id>#<quantity>``), the cell, the baseline's cell, and its
        record: environment, baseline, benchmark, params, quantity, metric, verdict, n,
        n_baseline, ratio, low, high, level, method, margin, margin_low_pct,
        margin_high_pct, margin_source, margin_reason, trials_needed, words; with a design
        also sequential (True), look (1-based, 0 before the first), looks (planned count),
        final (the last look taken), looks_at (its trial counts), design (in words), log_ratio
        and sd_log (the estimate and the SD per trial on the log scale, for the budget).
    """
    from overhead import margins as margin_file
    from overhead.stats import decide
    from overhead.stats.sequential import replay

    table = margin_file.load()
    base_of = {point_key(c.benchmark, c.params): cid
               for cid, c in cells_.items() if c.environment == baseline}
    for cid, c in cells_.items():
        bench = campaign.benchmarks[c.benchmark]
        if c.environment == baseline or not bench.judge:
            continue
        bid = base_of.get(point_key(c.benchmark, c.params))
        if bid is None:
            continue
        for i, judge in enumerate(bench.judge):
            key = f"{cid}#{judge.label}"
            if key in skip:
                continue
            x, y = values.get((cid, i)), values.get((bid, i))
            xs, ys = (x.values if x else ()), (y.values if y else ())
            hib = x.higher_is_better if x else (y.higher_is_better if y else None)
            margin = table.lookup(benchmark=c.benchmark, tool=c.runner, metric=judge.metric,
                                  item=judge.label)
            rec = {"environment": c.environment, "baseline": baseline, "benchmark": c.benchmark,
                   "params": c.params, "quantity": judge.label, "metric": judge.metric,
                   "margin": margin.words(), "margin_low_pct": margin.low_pct,
                   "margin_high_pct": margin.high_pct, "margin_source": margin.source,
                   "margin_reason": margin.reason}
            design = design_of(c) if design_of is not None else None
            if design is None:
                v = decide(list(xs), list(ys), margin, level, higher_is_better=hib)
                rec.update(verdict=v.verdict, n=len(xs), n_baseline=len(ys),
                           ratio=v.interval.ratio, low=v.interval.low, high=v.interval.high,
                           level=v.interval.level, method=v.interval.method,
                           trials_needed=v.trials_needed, words=v.words())
            else:
                sv = replay(x.by_round() if x else [], y.by_round() if y else [], margin,
                            design, higher_is_better=hib)
                v = sv.verdict
                look = sv.look
                rec.update(verdict=v.verdict, n=look.n if look else v.interval.n_x,
                           n_baseline=look.n_baseline if look else v.interval.n_y,
                           ratio=v.interval.ratio, low=v.interval.low, high=v.interval.high,
                           level=v.interval.level, method=v.interval.method,
                           trials_needed=None, words=sv.words(), sequential=True,
                           look=(look.index + 1) if look else 0, looks=len(design.looks),
                           final=sv.final, looks_at=list(design.looks), design=design.words(),
                           pairing=sv.pairing, **_spread(x, y, sv.pairing))
            yield key, cid, bid, rec


def _spread(x: Judged | None, y: Judged | None, pairing: str) -> dict:
    """Return the estimate and the SD per trial on the log scale, as the design pairs the sides."""
    import numpy as np

    out = {"log_ratio": math.nan, "sd_log": math.nan, "sd_df": 0}
    if x is None or y is None:
        return out
    xs = {r: v for r, v in x.by_round() if v > 0}
    ys = {r: v for r, v in y.by_round() if v > 0}
    if len(xs) < 2 or len(ys) < 2:
        return out
    if pairing == "rounds":
        common = sorted(set(xs) & set(ys))
        if len(common) < 2:
            return out
        d = np.log([xs[r] for r in common]) - np.log([ys[r] for r in common])
        return {"log_ratio": float(np.mean(d)), "sd_log": float(np.std(d, ddof=1)),
                "sd_df": len(common) - 1}
    lx, ly = np.log(list(xs.values())), np.log(list(ys.values()))
    # the pooled SD of one trial's log value (both sides), as expected_half_width takes it
    pooled = ((lx.size - 1) * np.var(lx, ddof=1) + (ly.size - 1) * np.var(ly, ddof=1)) / (
        lx.size + ly.size - 2)
    return {"log_ratio": float(math.log(np.mean(list(xs.values())) / np.mean(list(ys.values())))),
            "sd_log": float(math.sqrt(pooled)), "sd_df": lx.size + ly.size - 2}
