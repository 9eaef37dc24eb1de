"""Sequential verdicts: repeated confidence intervals that keep their error rates over every look.

A campaign that looks at its comparisons after every round and stops a comparison once it is
decided (``equivalent``, ``faster``/``slower``) takes many looks at the same growing data. Read
each look off a plain 95% interval and the chance of a false verdict somewhere along the way
grows with the number of looks (simulated for the old rule: 14.8% false differences at a
nominal 5%). Here every look is accounted for.

- A :class:`Design` plans the looks: at ``looks[0] < looks[1] < ... < looks[-1] = n_max``
  trials per side. An alpha-spending function (:class:`Spending`, Lan and DeMets 1983) says how
  much of the error rate ``alpha`` may be spent by the information fraction t = n / n_max; the
  look at n spends what the function adds since the look before, alpha_k.
- At look k the verdict is read off a *repeated confidence interval* (Jennison and Turnbull
  1989) of level 1 - alpha_k, exactly as :func:`overhead.stats.decide` reads a fixed-n verdict
  off its 95% interval (equivalent: inside the margin; a difference: 1 excluded). The levels
  add up by Bonferroni's inequality: whatever rule decides when to stop (a comparison decided,
  a budget spent, a comparison given up as hopeless, a host that got busy), the chance that any
  of the looks taken misses the true ratio is at most sum(alpha_k) <= alpha. A false difference
  (the interval excludes a true ratio of 1) and a false equivalence (an interval inside the
  margin around a true ratio outside it) each need such a miss, so each stays at or below
  ``alpha`` over the whole procedure, and the interval a verdict is read from covers the truth
  with at least 1 - alpha. The simulation in :mod:`overhead.stats.coverage` checks this on
  lognormal and bimodal samples with drift between rounds (docs/coverage.md).
- A comparison stops at its first deciding look; later data (a baseline that ran on for other
  comparisons) do not reopen it. A comparison that reaches its last look undecided is
  ``inconclusive`` on that look's interval.
- Pairing: with ``pairing = "rounds"`` the trials of one round are a block (the environments'
  trials of a round share the machine's state) and the interval is the paired t interval of
  the mean log ratio; otherwise the unpaired ratio-of-means interval of
  :func:`overhead.stats.ratio_interval` (Fieller's). The design says which, chosen before the
  data it judges (the pilot's variance components, :mod:`overhead.stats.components`).

:func:`replay` is the one procedure: the stopping rule calls it after every round on the data so
far, and any later reading of a finished campaign calls it on the same rounds and gets the same
verdict, look and interval.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from scipy import stats as st

from overhead.stats._common import StatsError, check_level
from overhead.stats.ratio import RatioInterval, paired_log_ratio_interval, ratio_interval
from overhead.stats.verdicts import Margin, Verdict, decide

__all__ = ["PAIRINGS", "SPENDING_KINDS", "Design", "Look", "SequentialVerdict", "Spending",
           "choose_pairing", "expected_half_width", "looks_needed", "replay"]

#: Spending functions :class:`Spending` knows.
SPENDING_KINDS = ("power", "pocock", "obrien-fleming")

#: How a comparison's two sides are put together at a look. "auto" (chosen at the first look
#: from the comparison's own spread, :func:`choose_pairing`) is kept for the simulation that
#: rejected it: choosing the narrower interval from the data being judged gave 5.8% false
#: differences at a nominal 5% (10,000 comparisons, SE 0.2 points; docs/coverage.md), so no
#: campaign may ask for it; a pilot chooses the pairing from data of its own.
PAIRINGS = ("none", "rounds", "auto")


@dataclass(frozen=True)
class Spending:
    """An alpha-spending function: the error rate spent by information fraction t (0 < t <= 1).

    - ``power``: alpha * t^rho (rho = 1 spends evenly; larger rho keeps more for the last
      looks, where the undecided comparisons near a margin are decided);
    - ``pocock``: alpha * ln(1 + (e - 1) t) (Lan-DeMets' Pocock-like function);
    - ``obrien-fleming``: 2 - 2 Phi(z_{alpha/2} / sqrt(t)) (Lan-DeMets' O'Brien-Fleming-like).

    Attributes
    ----------
    kind : str
        One of :data:`SPENDING_KINDS`.
    rho : float
        The power family's exponent (> 0).
    """

    kind: str = "power"
    rho: float = 2.0

    def __post_init__(self) -> None:
        """Refuse an unknown kind or a non-positive exponent."""
        if self.kind not in SPENDING_KINDS:
            raise StatsError(f"spending kind {self.kind!r}: one of {', '.join(SPENDING_KINDS)}")
        if not (self.rho > 0 and math.isfinite(self.rho)):
            raise StatsError(f"spending rho must be > 0, got {self.rho}")

    def spent(self, t: float, alpha: float) -> float:
        """Return the error rate spent by information fraction ``t`` (clipped to [0, 1])."""
        t = min(max(float(t), 0.0), 1.0)
        if t == 0.0:
            return 0.0
        if self.kind == "power":
            return alpha * t ** self.rho
        if self.kind == "pocock":
            return alpha * math.log(1.0 + (math.e - 1.0) * t)
        return float(2.0 - 2.0 * st.norm.cdf(st.norm.ppf(1.0 - alpha / 2.0) / math.sqrt(t)))

    def words(self) -> str:
        """Say the function in a few words."""
        if self.kind == "power":
            return f"alpha t^{self.rho:g}"
        return f"{self.kind} (Lan-DeMets)"


@dataclass(frozen=True)
class Design:
    """The planned looks of a sequential comparison and how much error each may spend.

    Attributes
    ----------
    looks : tuple of int
        Trials per side at each look, increasing, the first at least 2; the last is n_max (the
        information fraction of look k is looks[k] / looks[-1]).
    alpha : float
        The error rate over the whole procedure (0.05: 95% overall).
    spending : Spending
        How alpha is spread over the looks.
    pairing : str
        "none" (independent samples: the ratio of means, Fieller's interval), "rounds" (each
        round a block: the paired t interval of the mean log ratio) or "auto" (whichever the
        data of the first look says will give the narrower last look: :func:`choose_pairing`).
    """

    looks: tuple[int, ...]
    alpha: float = 0.05
    spending: Spending = field(default_factory=Spending)
    pairing: str = "none"

    def __post_init__(self) -> None:
        """Check the looks (increasing, from 2 up), alpha and the pairing."""
        looks = tuple(int(n) for n in self.looks)
        object.__setattr__(self, "looks", looks)
        if not looks or looks[0] < 2 or any(b <= a for a, b in zip(looks, looks[1:], strict=False)):
            raise StatsError(f"looks must be increasing trial counts from 2 up, got {list(looks)}")
        check_level(1.0 - self.alpha)
        if self.pairing not in PAIRINGS:
            raise StatsError(f"pairing {self.pairing!r}: one of {', '.join(PAIRINGS)}")
        if self.pairing in ("rounds", "auto") and looks[0] < 3:
            raise StatsError("a paired design needs its first look at 3 trials or more (2 pairs "
                             "leave 1 degree of freedom)")

    @classmethod
    def every_round(cls, first: int, n_max: int, **kwargs) -> Design:
        """Return a design with a look at every trial count from ``first`` to ``n_max``."""
        return cls(tuple(range(int(first), int(n_max) + 1)), **kwargs)

    @property
    def n_max(self) -> int:
        """The last look's trials per side."""
        return self.looks[-1]

    def alphas(self) -> tuple[float, ...]:
        """Return the error rate each look spends (they add up to ``alpha``)."""
        out, before = [], 0.0
        for n in self.looks:
            now = self.spending.spent(n / self.n_max, self.alpha)
            out.append(max(now - before, 0.0))
            before = now
        return tuple(out)

    def level(self, k: int) -> float:
        """Return the level of look ``k``'s interval (1 - alpha_k)."""
        return 1.0 - self.alphas()[k]

    def look_of(self, n: int) -> int | None:
        """Return the index of the look taken at ``n`` trials per side (None: no look there)."""
        try:
            return self.looks.index(int(n))
        except ValueError:
            return None

    def words(self) -> str:
        """Say the design in one line: looks, spending, levels, pairing."""
        lv = ", ".join(f"{100 * self.level(k):.2f}%" for k in range(len(self.looks)))
        how = {"rounds": "paired by round (log ratios)",
               "auto": "paired by round or not as the first look's spread says"}.get(
            self.pairing, "independent samples (ratio of means)")
        return (f"looks at {', '.join(map(str, self.looks))} trials per side, "
                f"{100 * (1 - self.alpha):g}% overall ({self.spending.words()} spending: "
                f"intervals of {lv}), {how}")

    def to_json(self) -> dict:
        """Return the design as a JSON-ready dict (plan.json, the tidy tables)."""
        return {"looks": list(self.looks), "alpha": self.alpha, "spending": self.spending.kind,
                "rho": self.spending.rho, "pairing": self.pairing}

    @classmethod
    def from_json(cls, data: dict) -> Design:
        """Return the design :meth:`to_json` wrote."""
        return cls(tuple(data["looks"]), float(data.get("alpha", 0.05)),
                   Spending(str(data.get("spending", "power")), float(data.get("rho", 2.0))),
                   str(data.get("pairing", "none")))


@dataclass(frozen=True)
class Look:
    """One look of a sequential comparison: its trials, level and the verdict read there."""

    index: int
    n: int
    n_baseline: int
    level: float
    verdict: Verdict


@dataclass(frozen=True)
class SequentialVerdict:
    """A comparison decided sequentially: the verdict, the look it was read at, every look.

    Attributes
    ----------
    verdict : Verdict
        The verdict decided on; its interval is the one it was read from (level 1 - alpha_k
        of its look). ``not tested`` before the first look.
    looks : tuple of Look
        Every look taken, in order (the last is the one the verdict comes from).
    design : Design
        The plan of looks.
    final : bool
        The last planned look was taken (an ``inconclusive`` here cannot become decided).
    """

    verdict: Verdict
    looks: tuple[Look, ...]
    design: Design
    final: bool
    #: The pairing the looks used ("none" or "rounds"; the design's, or the one "auto" chose).
    pairing: str = "none"

    @property
    def decided(self) -> bool:
        """Whether a look decided the comparison (equivalent or a difference)."""
        return self.verdict.verdict in ("equivalent", "faster", "slower", "higher", "lower")

    @property
    def look(self) -> Look | None:
        """The look the verdict was read at (None before the first look)."""
        return self.looks[-1] if self.looks else None

    def words(self) -> str:
        """Say the verdict with its sequential interval: which look, of how many, at what level."""
        v = self.verdict
        if self.look is None:
            return v.words()
        said = v.words()
        # "(95% CI, n=...)" becomes "(98.8% sequential interval, look 3 of 8, n=...)"
        lv = f"{100 * v.interval.level:g}% CI"
        seq = (f"{100 * v.interval.level:.2f}% sequential interval, look {self.look.index + 1} "
               f"of {len(self.design.looks)}")
        said = said.replace(lv, seq, 1)
        if v.verdict == "inconclusive":
            # a fixed-n estimate of the trials needed does not apply: the design's looks do
            said = said.split("; about ")[0].split("; the estimate sits on the margin")[0]
            nxt = [n for n in self.design.looks if n > self.look.n]
            said += (f"; its next look is at {nxt[0]} trials a side" if nxt and not self.final
                     else "; its last planned look")
        return said


def _pairs(x: Sequence[tuple[int, float]], y: Sequence[tuple[int, float]]
           ) -> tuple[list[int], dict[int, float], dict[int, float]]:
    """Return the rounds both sides have, and each side's value per round (one per round)."""
    xs, ys = {}, {}
    for side, into in ((x, xs), (y, ys)):
        for r, v in side:
            if r in into:
                raise StatsError(f"round {r} has two values on one side: one trial per cell "
                                 "and round")
            into[int(r)] = float(v)
    return sorted(set(xs) & set(ys)), xs, ys


def _interval(xs: Sequence[float], ys: Sequence[float], level: float, pairing: str
              ) -> RatioInterval:
    if pairing == "rounds":
        return paired_log_ratio_interval(xs, ys, level)
    return ratio_interval(xs, ys, level)


def _decide_at(xs: Sequence[float], ys: Sequence[float], margin: Margin, level: float,
               design: Design, higher_is_better: bool | None) -> Verdict:
    """Return the verdict of one look, read off its interval (paired or not, as designed)."""
    method = "paired" if design.pairing == "rounds" else "auto"
    # the fixed-n "trials needed" does not apply to a look: the sequential one is said instead
    return decide(xs, ys, margin, level, higher_is_better=higher_is_better, method=method,
                  estimate_trials=False)


def replay(x: Iterable[tuple[int, float]], y: Iterable[tuple[int, float]], margin: Margin,
           design: Design, *, higher_is_better: bool | None = None) -> SequentialVerdict:
    """Replay a comparison's looks over its rounds and return the verdict where it stopped.

    The rounds are taken in order; a look is taken when the environment's side reaches the
    trial count of the next planned look (paired: the rounds both sides ran), on every value
    of both sides up to that round. The first look whose interval decides is where the
    comparison stopped; without one, the last look taken is ``inconclusive``.

    Parameters
    ----------
    x, y : iterable of (int, float)
        The environment's and the baseline's values, each with its round (one per round).
    margin : Margin
        The equivalence margin.
    design : Design
        The planned looks, spending and pairing.
    higher_is_better : bool or None
        The quantity's better direction (None: "higher"/"lower").

    Returns
    -------
    SequentialVerdict
        ``not tested`` (with a reason) when not even the first look could be taken.
    """
    x, y = list(x), list(y)
    common, xs, ys = _pairs(x, y)
    rounds = sorted(set(xs) | set(ys))
    if design.pairing == "auto":
        design = Design(design.looks, design.alpha, design.spending,
                        choose_pairing(xs, ys, design))
    alphas = design.alphas()
    looks: list[Look] = []
    k = 0
    for r in rounds:
        if k >= len(design.looks):
            break
        if design.pairing == "rounds":
            upto = [c for c in common if c <= r]
            n = len(upto)
            a, b = [xs[c] for c in upto], [ys[c] for c in upto]
        else:
            a = [v for c, v in sorted(xs.items()) if c <= r]
            b = [v for c, v in sorted(ys.items()) if c <= r]
            n = len(a)
        if n < design.looks[k] or (looks and n == looks[-1].n):
            continue
        level = 1.0 - alphas[k]
        v = _decide_at(a, b, margin, level, design, higher_is_better)
        looks.append(Look(k, n, len(b), level, v))
        k += 1
        if v.verdict not in ("inconclusive", "not tested"):
            break
    if not looks:
        n = len(common) if design.pairing == "rounds" else len(xs)
        iv = RatioInterval(math.nan, math.nan, math.nan, 1.0 - alphas[0], "none", n, len(ys),
                           None, f"n={n}: the first look is at {design.looks[0]} trials per side")
        v = Verdict("not tested", iv, margin, math.nan, math.nan,
                    reason=f"{n} of the {design.looks[0]} trials per side of the first look")
        return SequentialVerdict(v, (), design, False, design.pairing)
    last = looks[-1]
    return SequentialVerdict(last.verdict, tuple(looks), design,
                             last.index == len(design.looks) - 1, design.pairing)


def choose_pairing(xs: dict[int, float], ys: dict[int, float], design: Design) -> str:
    """Choose paired or unpaired looks from the data of the first look alone.

    At the round where the environment's side reaches the first look's trials (and both sides
    have that many rounds in common), the SD of the rounds' log ratios and the pooled SD of
    each side's log values predict the half-width of the last look either way
    (:func:`expected_half_width`); the narrower one is used for every look. The choice reads
    only spreads, never the estimate, so it does not steer the verdict (simulated with the
    rest of the procedure, docs/coverage.md: it does, slightly, 5.8% false differences at a
    nominal 5%, which is why campaigns cannot use it); a choice that cannot be made yet (too
    few rounds in common, a value not above 0) is "none".
    """
    import numpy as np

    first = design.looks[0]
    mine = sorted(xs)
    if len(mine) < first:
        return "none"
    upto = mine[first - 1]
    common = [r for r in sorted(set(xs) & set(ys)) if r <= upto]
    a = [xs[r] for r in mine if r <= upto]
    b = [ys[r] for r in sorted(ys) if r <= upto]
    if len(common) < first or min(a + b) <= 0:
        return "none"
    d = np.log([xs[r] for r in common]) - np.log([ys[r] for r in common])
    la, lb = np.log(a), np.log(b)
    pooled = math.sqrt(((la.size - 1) * np.var(la, ddof=1) + (lb.size - 1) * np.var(lb, ddof=1))
                       / (la.size + lb.size - 2))
    last = len(design.looks) - 1
    paired = expected_half_width(float(np.std(d, ddof=1)), design.n_max, design.level(last),
                                 pairing="rounds")
    unpaired = expected_half_width(pooled, design.n_max, design.level(last), pairing="none")
    return "rounds" if paired < unpaired else "none"


def expected_half_width(sd_log: float, n: int, level: float, *, pairing: str = "none") -> float:
    """Return the expected half-width, on the log scale, of a look's interval at ``n`` per side.

    Parameters
    ----------
    sd_log : float
        The SD of one trial's log value on each side (unpaired) or of one round's log ratio
        (paired), as a pilot estimated it.
    n : int
        Trials per side.
    level : float
        The look's level.
    pairing : str
        "none": sqrt(2 / n) sd with 2n - 2 df; "rounds": sd / sqrt(n) with n - 1 df.

    Returns
    -------
    float
        t quantile x standard error (NaN for n < 2).
    """
    if n < 2 or not math.isfinite(sd_log):
        return math.nan
    q = 0.5 + level / 2.0
    if pairing == "rounds":
        return float(st.t.ppf(q, n - 1)) * sd_log / math.sqrt(n)
    return float(st.t.ppf(q, 2 * n - 2)) * sd_log * math.sqrt(2.0 / n)


def looks_needed(log_ratio: float, sd_log: float, margin: Margin, design: Design, *,
                 after: int = 0) -> int | None:
    """Return the trials per side of the first look expected to decide a comparison.

    With the estimate and the SD taken as the truth (a pilot's, or the pooled one of the
    campaign so far): the first planned look beyond ``after`` trials whose expected half-width
    is below the distance that decides, the larger of |log r| (a difference) and, when r lies
    inside the margin, its log distance to the nearer margin bound (equivalence). None when no
    planned look would (the estimate on a margin bound, or too much spread for n_max): the
    comparison cannot be decided within the design.

    Parameters
    ----------
    log_ratio : float
        The estimated log ratio.
    sd_log : float
        As in :func:`expected_half_width`.
    margin : Margin
        The equivalence margin.
    design : Design
        The planned looks.
    after : int
        Trials per side already looked at (only later looks count).

    Returns
    -------
    int or None
        Trials per side.
    """
    if not (math.isfinite(log_ratio) and math.isfinite(sd_log)):
        return None
    goals = [abs(log_ratio)]
    lo, hi = math.log(margin.low), math.log(margin.high)
    if lo < log_ratio < hi:
        goals.append(min(log_ratio - lo, hi - log_ratio))
    goal = max(goals)
    if goal <= 0:
        return None
    for k, n in enumerate(design.looks):
        if n <= after:
            continue
        if expected_half_width(sd_log, n, design.level(k), pairing=design.pairing) < goal:
            return n
    return None

