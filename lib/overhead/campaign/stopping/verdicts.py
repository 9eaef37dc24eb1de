"""The verdicts rule: rounds while a comparison with the baseline can still be decided.

``rule: verdicts``: each cell of an environment other than ``baseline`` is compared with the
baseline's cell of the same point on every quantity its benchmark's ``judge`` lists, against
the margin of ``data/reference/margins.yml``. The comparisons are sequential
(:mod:`overhead.stats.sequential`): looks at ``looks`` trials per side (the last is
``max_rounds``), each read off a repeated confidence interval whose level spends part of
``alpha`` (``spending``), so that over every look the rule takes a false difference and a false
equivalence each stay at or below ``alpha`` (5%). A comparison stops at its first deciding look
and its verdict is the one read there; one whose last look is undecided stops
``inconclusive``. ``pairing: rounds`` reads the paired interval of the rounds (a benchmark's
``pairing`` or an environment's under ``environments:`` says otherwise for its cells; a pilot,
:mod:`overhead.campaign.pilot`, says which is narrower from data of its own: choosing it from
the comparison's own first look was simulated and spends more than its share of the error rate,
5.8% false differences at a nominal 5%, so a campaign cannot ask for that);
``environments: {vm: {looks: [2]}}`` gives an environment its own looks (an emulated VM whose
every comparison is decided at 2 trials does not need the containers' looks).

The budget goes where it decides (``max_minutes`` of the run): after each round every open
comparison's next deciding look is estimated from the spread seen so far, and so is the time
to reach it (its cells'
trial times). A comparison that no planned look is expected to decide, even at the spread's
lower 90% bound, is given up (its trials would buy nothing); the others are taken nearest
first while the time they need fits in what is left of the budget; the rest stop, said so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from pydantic import Field, model_validator

from overhead.campaign.stopping.base import MAX_RULE_ROUNDS, Extension, StoppingRule, StoppingSpec
from overhead.environments.spec import Int, Number, Strict

__all__ = ["EnvironmentDesign", "SpendingSpec", "VerdictsRule", "VerdictsSpec", "default_looks"]

#: Seconds the harness adds to a trial (connection, noise samples, pauses, fetch) when the run
#: has not measured it yet; the budget's estimate of a trial's cost.
HARNESS_S = 0.5


class SpendingSpec(Strict):
    """How ``alpha`` is spread over the looks (:class:`overhead.stats.sequential.Spending`)."""

    kind: Literal["power", "pocock", "obrien-fleming"] = "power"
    rho: Number = Field(2.0, gt=0, le=10)


class EnvironmentDesign(Strict):
    """An environment's own looks or pairing (the rule's are used where not given)."""

    looks: tuple[Int, ...] | None = None
    pairing: Literal["none", "rounds"] | None = None


def default_looks(first: int, last: int) -> tuple[int, ...]:
    """Return looks from ``first`` to ``last`` trials, each about twice the one before.

    Few looks spend little of the error rate on early ones (simulated in docs/coverage.md:
    looks at every round leave a third of the comparisons at CV 2% undecided that looks at
    3, 6 and 12 trials decide).
    """
    looks, n = [], int(first)
    while n < last:
        looks.append(n)
        n *= 2
    if looks and last - looks[-1] < max(2, looks[-1] // 2):
        looks[-1] = last
    else:
        looks.append(int(last))
    return tuple(dict.fromkeys(looks))


def _check_looks(looks: tuple[int, ...], where: str) -> None:
    if not looks or looks[0] < 2 or any(b <= a for a, b in zip(looks, looks[1:], strict=False)):
        raise ValueError(f"{where}: looks must be increasing trial counts from 2 up, got "
                         f"{list(looks)}")
    if looks[-1] > MAX_RULE_ROUNDS:
        raise ValueError(f"{where}: at most {MAX_RULE_ROUNDS} trials")


class VerdictsSpec(StoppingSpec):
    """``rule: verdicts``: the baseline, the looks, the error rate and its spending, the budget.

    ``looks`` (trials per side at each look) or ``min_rounds`` and ``max_rounds`` (looks from
    the first to the last, each about twice the one before: :func:`default_looks`).
    """

    rule: Literal["verdicts"]
    baseline: str
    looks: tuple[Int, ...] | None = None
    min_rounds: Int | None = Field(None, ge=2, le=MAX_RULE_ROUNDS)
    max_rounds: Int | None = Field(None, ge=2, le=MAX_RULE_ROUNDS)  # type: ignore[assignment]
    alpha: Number = Field(0.05, gt=0, lt=0.5)
    spending: SpendingSpec = Field(default_factory=SpendingSpec)
    pairing: Literal["none", "rounds"] = "none"
    max_minutes: Number | None = Field(None, gt=0, le=7 * 24 * 60)
    environments: dict[str, EnvironmentDesign] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _looks(self) -> VerdictsSpec:
        """Check the looks (increasing from 2; min/max_rounds, if given too, agree with them)."""
        if self.looks is not None:
            _check_looks(self.looks, "looks")
            if self.min_rounds is not None and self.min_rounds != self.looks[0]:
                raise ValueError(f"min_rounds {self.min_rounds} is not the first look "
                                 f"{self.looks[0]}: give one of them")
            if self.max_rounds is not None and self.max_rounds != self.looks[-1]:
                raise ValueError(f"max_rounds {self.max_rounds} is not the last look "
                                 f"{self.looks[-1]}: give one of them")
        elif (self.max_rounds or 12) < (self.min_rounds or 3):
            raise ValueError(f"max_rounds {self.max_rounds} < min_rounds {self.min_rounds}")
        for name, env in self.environments.items():
            if env.looks is not None:
                _check_looks(env.looks, f"environments.{name}.looks")
        return self

    def the_looks(self) -> tuple[int, ...]:
        """Return the rule's looks (given, or from min_rounds 3 and max_rounds 12 by default)."""
        if self.looks is not None:
            return tuple(self.looks)
        return default_looks(self.min_rounds or 3, self.max_rounds or 12)


class VerdictsRule(StoppingRule):
    """Sequential comparisons with the baseline, rounds while one can still be decided."""

    name = "verdicts"
    Spec = VerdictsSpec

    @property
    def baseline(self) -> str:
        """The environment every other is compared with."""
        return self.spec.baseline

    @property
    def max_rounds(self) -> int:
        """The last look of any environment's design."""
        lasts = [self.spec.the_looks()[-1]] + [e.looks[-1] for e in self.spec.environments.values()
                                                 if e.looks]
        return max(lasts)

    def _looks_and_pairing(self, environment: str, benchmark: str) -> tuple[tuple[int, ...], str, str]:
        """Return a cell's looks, its pairing and the field the pairing came from.

        Its environment's looks (else the rule's); its environment's or benchmark's pairing
        (else the rule's).
        """
        s = self.spec
        env = s.environments.get(environment) or EnvironmentDesign()
        bench = self.campaign.benchmarks.get(benchmark)
        looks = tuple(env.looks or s.the_looks())
        if env.pairing:
            return looks, env.pairing, f"environment {environment!r} pairs by rounds"
        if bench is not None and bench.pairing:
            return looks, bench.pairing, f"benchmark {benchmark!r} pairs by rounds"
        return looks, s.pairing, "the rule pairs by rounds"

    def design_of(self, cell):
        """Return the design a cell's comparisons are decided with.

        Its looks and pairing (:meth:`_looks_and_pairing`), the rule's alpha and spending.
        """
        from overhead.stats.sequential import Design, Spending

        looks, pairing, _ = self._looks_and_pairing(cell.environment, cell.benchmark)
        return Design(looks, float(self.spec.alpha),
                      Spending(self.spec.spending.kind, float(self.spec.spending.rho)), pairing)

    def check(self) -> None:
        """Refuse a paired design whose first look has fewer than 3 trials (named by field).

        A benchmark's ``pairing: rounds`` (a profile's) meets the rule's or an environment's
        looks here; 2 pairs leave one degree of freedom, and the rule would fail after the
        trials instead of before them (:class:`overhead.stats.sequential.Design` says the same).
        """
        for env in self.campaign.environments:
            if env == self.baseline:
                continue
            for bname, bench in self.campaign.benchmarks.items():
                looks, pairing, why = self._looks_and_pairing(env, bname)
                if not bench.judge or pairing != "rounds" or looks[0] >= 3:
                    continue
                mine = self.spec.environments.get(env)
                where = (f"stopping.environments.{env}.looks" if mine and mine.looks
                         else "stopping.looks (or min_rounds)")
                raise ValueError(f"{why} but its first look in environment {env!r} is "
                                 f"{looks[0]} trials ({where}): a paired design needs its first "
                                 "look at 3 trials or more (2 pairs leave 1 degree of freedom); "
                                 "start the looks at 3 or give the environment pairing: none")

    def _in_comparison(self, cells, cell) -> bool:
        """Whether a cell takes part in a judged comparison."""
        if not self.campaign.benchmarks[cell.benchmark].judge:
            return False
        base = self.baseline
        others = [c for c in cells.values() if c.benchmark == cell.benchmark
                  and c.params == cell.params]
        if cell.environment == base:
            return any(c.environment != base for c in others)
        return any(c.environment == base for c in others)

    def _first(self, cells, cell) -> int:
        """Return the trials a cell needs for the first look of its comparisons."""
        if cell.environment != self.baseline:
            return self.design_of(cell).looks[0]
        peers = [c for c in cells.values() if c.benchmark == cell.benchmark
                 and c.params == cell.params and c.environment != self.baseline]
        return max((self.design_of(c).looks[0] for c in peers), default=self.spec.the_looks()[0])

    def start_rounds(self, cells: Mapping) -> dict[str, int]:
        """Every cell starts with the trials of its first look (others: the rule's first look)."""
        first = self.spec.the_looks()[0]
        return {cid: (self._first(cells, c) if self._in_comparison(cells, c) else first)
                for cid, c in cells.items()}

    def start_stops(self, cells: Mapping) -> dict[str, str]:
        """Cells without a judged comparison stop after the rule's first look's trials."""
        n = self.spec.the_looks()[0]
        return {cid: f"fixed count of {n} trials (no judged quantity, no comparison)"
                for cid, c in cells.items() if not self._in_comparison(cells, c)}

    def take(self, values: dict, trial, rows) -> None:
        """Add the trial's value of each judged quantity of its benchmark, with its round."""
        from overhead.campaign.judging import Judged, judged_value

        for i, judge in enumerate(self.campaign.benchmarks[trial.benchmark].judge):
            value, hib = judged_value(rows, judge)
            if value is None:
                continue
            old = values.get((trial.cell, i)) or Judged(())
            values[(trial.cell, i)] = old.add(value, trial.round, hib)

    # -- after each round -------------------------------------------------------------------

    def extend(self, plan, values: Mapping, *, elapsed_minutes: float | None = None,
               costs: Mapping[str, float] | None = None) -> Extension:
        """Decide every comparison sequentially, then spend the budget where it decides."""
        from overhead.campaign.judging import DECIDED, compare_cells

        s = self.spec
        costs = dict(costs or {})
        n_of: dict[str, int] = {}
        for t in plan.trials:
            if not t.warmup:
                n_of[t.cell] = n_of.get(t.cell, 0) + 1
        over = (s.max_minutes is not None and elapsed_minutes is not None
                and elapsed_minutes >= s.max_minutes)
        decisions: dict[str, dict] = {}
        open_: list[tuple[str, str, str, dict]] = []
        for key, cid, bid, rec in compare_cells(self.campaign, plan.cells, values, self.baseline,
                                                design_of=self.design_of):
            before = plan.decisions.get(key) or {}
            rec["stopped"] = False
            if before.get("stopped") and before.get("stopped_by") in ("decided", "final"):
                # a look decided it (or was its last): later data never reopen it (the
                # replay reads the same look again; kept as recorded)
                decisions[key] = before
                continue
            if rec["verdict"] in DECIDED:
                rec.update(stopped=True, stopped_by="decided",
                           why=f"decided at look {rec['look']} of {rec['looks']} "
                               f"({rec['n']} trials a side): {rec['words']}")
            elif rec.get("final") or n_of.get(cid, 0) >= self.design_of(plan.cells[cid]).n_max:
                # the last look taken undecided, or its trials ran without one (no values)
                n_max = self.design_of(plan.cells[cid]).n_max
                rec.update(stopped=True, stopped_by="final",
                           why=f"its last planned look ({n_max} trials a side) reached: "
                               f"{rec['words']}")
            elif over:
                rec.update(stopped=True, stopped_by="time",
                           why=f"time budget of {s.max_minutes:g} min spent "
                               f"({elapsed_minutes:.1f} min): {rec['words']}")
            else:
                open_.append((key, cid, bid, rec))
            decisions[key] = rec
        notes: list[str] = []
        chosen = self._spend(open_, plan, costs, n_of, elapsed_minutes, decisions, notes)
        running_cells: set[str] = set()
        for key, cid, bid, _ in open_:
            if key in chosen:
                running_cells.update((cid, bid))
        stops = dict(plan.stops)
        for cid, c in plan.cells.items():
            if cid in running_cells:
                stops.pop(cid, None)
                continue
            mine = [f"{r['environment']} vs {r['baseline']} [{r['quantity']}]: {r['why']}"
                    for k, r in decisions.items() if k.split("#", 1)[0] == cid and r.get("why")]
            if cid in stops and (c.environment == self.baseline or not mine):
                continue
            if c.environment == self.baseline:
                stops[cid] = f"after {n_of.get(cid, 0)} trials: every comparison with it stopped"
            else:
                stops[cid] = "; ".join(mine) or f"after {n_of.get(cid, 0)} trials: no comparison"
        running = [cid for cid in plan.cells if cid in running_cells]
        return Extension(running, stops, decisions, notes)

    def _spend(self, open_, plan, costs, n_of, elapsed_minutes, decisions, notes) -> set[str]:
        """Choose the open comparisons the next round serves; stop the others, saying why.

        Each open comparison's next deciding look is estimated from its spread (pooled over
        the points of its benchmark, quantity and environment when its own has fewer than 2
        degrees of freedom); given up when even the spread's
        lower 90% bound leaves every planned look undecided; the rest taken nearest first
        while the seconds they need fit in what is left of ``max_minutes``.
        """
        from scipy import stats as st

        from overhead.stats import Margin
        from overhead.stats.sequential import looks_needed

        if not open_:
            return set()
        pooled: dict[tuple, tuple[float, int]] = {}
        for rec in decisions.values():
            sd, df = rec.get("sd_log"), int(rec.get("sd_df") or 0)
            if sd is None or not math.isfinite(sd) or df < 1:
                continue
            g = (rec["benchmark"], rec["quantity"], rec["environment"])
            ss, dd = pooled.get(g, (0.0, 0))
            pooled[g] = (ss + df * sd * sd, dd + df)
        left = math.inf
        if self.spec.max_minutes is not None and elapsed_minutes is not None:
            left = 60.0 * (self.spec.max_minutes - elapsed_minutes)
        users: dict[str, int] = {}
        for _, _, bid, _ in open_:
            users[bid] = users.get(bid, 0) + 1
        plans = []
        for key, cid, bid, rec in open_:
            cell = plan.cells[cid]
            design = self.design_of(cell)
            margin = Margin(float(rec["margin_low_pct"]), float(rec["margin_high_pct"]))
            n_now = n_of.get(cid, 0)
            # its own spread; pooled over its benchmark's points in the same environment only
            # where its own has fewer than 2 degrees of freedom (points differ in spread)
            sd, df = rec.get("sd_log", math.nan), int(rec.get("sd_df") or 0)
            if df < 2:
                ss, df = pooled.get((rec["benchmark"], rec["quantity"], rec["environment"]), (0.0, 0))
                sd = math.sqrt(ss / df) if df else math.nan
            lr = rec.get("log_ratio", math.nan)
            looked = rec["n"] if rec.get("look") else 0
            if not (math.isfinite(sd) and math.isfinite(lr)):
                need = next((n for n in design.looks if n > max(looked, n_now)), design.n_max)
                rec["trials_needed"] = None
            else:
                need = looks_needed(lr, sd, margin, design, after=looked)
                low = sd * math.sqrt(df / float(st.chi2.ppf(0.9, df)))
                if need is None and looks_needed(lr, low, margin, design, after=looked) is None:
                    rec.update(stopped=True, stopped_by="hopeless",
                               why=(f"given up after {rec['n']} trials a side: at the spread "
                                    f"seen ({100 * sd:.1f}% per trial on the log scale, {df} "
                                    f"df) no planned look up to "
                                    f"{design.n_max} trials is expected to decide it, even "
                                    f"at the spread's lower 90% bound: {rec['words']}"))
                    decisions[key] = rec
                    continue
                rec["trials_needed"] = need
                if need is None:
                    need = design.n_max
            rounds = max(need - n_now, 1)
            per_round = costs.get(cid, HARNESS_S) + costs.get(bid, HARNESS_S) / users[bid]
            plans.append((rounds * per_round, rounds, key, rec))
        chosen, spent = set(), 0.0
        for seconds, _rounds, key, rec in sorted(plans, key=lambda p: (p[0], p[2])):
            if spent + seconds <= left:
                chosen.add(key)
                spent += seconds
                continue
            rec.update(stopped=True, stopped_by="budget",
                       why=(f"budget: its next deciding look ({rec.get('trials_needed') or '?'} "
                            f"trials a side) would take about {seconds:.0f} s more of the "
                            f"{max(left, 0):.0f} s left, which went to comparisons nearer a "
                            f"decision: {rec['words']}"))
            decisions[key] = rec
        if plans:
            notes.append(f"{len(chosen)} of {len(plans)} open comparisons get another round "
                         f"(about {spent:.0f} s of the {left:.0f} s left to their next "
                         "deciding looks)" if math.isfinite(left) else
                         f"{len(chosen)} open comparisons get another round")
        return chosen

    # -- words ------------------------------------------------------------------------------

    def describe(self) -> str:
        """Say the rule in one line."""
        from overhead.stats.sequential import Design, Spending

        s = self.spec
        judged = ", ".join(f"{b} ({', '.join(j.label for j in bench.judge)})"
                           for b, bench in self.campaign.benchmarks.items() if bench.judge)
        d = Design(s.the_looks(), float(s.alpha), Spending(s.spending.kind, float(s.spending.rho)),
                   s.pairing)
        own = "".join(f"; {e}: looks at {', '.join(map(str, v.looks))}"
                      for e, v in s.environments.items() if v.looks)
        budget = f", within {s.max_minutes:g} minutes of the run" if s.max_minutes else ""
        return (f"stopping rule: each comparison with {s.baseline} ({judged}; margins from "
                f"data/reference/margins.yml) decided sequentially, {d.words()}{own}; a "
                f"comparison stops at its first deciding look, rounds go to the ones that can "
                f"still be decided{budget}")

    def report_words(self, plan: Mapping) -> str:
        """Say what the rule did: rounds, how each comparison stopped, the boundary used."""
        decisions = plan.get("decisions") or {}
        by: dict[str, int] = {}
        for rec in decisions.values():
            by[str(rec.get("stopped_by") or "open")] = by.get(str(rec.get("stopped_by") or "open"), 0) + 1
        names = {"decided": "decided at a look", "final": "undecided at their last planned look",
                 "hopeless": "given up (their spread leaves every planned look undecided)",
                 "budget": "stopped by the budget (the time went to comparisons nearer a "
                           "decision)", "time": "stopped when the time budget was spent",
                 "open": "still open (the run was stopped)"}
        counts = "; ".join(f"{n} {names.get(k, k)}" for k, n in sorted(by.items()))
        rounds = int(plan.get("rounds") or 0)
        first = self.spec.the_looks()[0] + self.campaign.warmup
        return (f"{self.describe()}. The run took {rounds} rounds ({max(rounds - first, 0)} added "
                f"after the first look's {first}). Of {len(decisions)} comparisons: {counts}. "
                "Each verdict is read off the interval of the look it stopped at, whose level "
                "is its share of the 5% error rate: over all the looks taken a false difference "
                "and a false equivalence each stay at or below 5% (docs/coverage.md).")
