"""Benchmark of the trial design: where the quick profile's variance lives, and what it costs.

Runs (or resumes: finished trials are kept) the pilot of data/campaigns/local-quick.yml on the
hosts of `make hosts-up` (`overhead pilot`: each judged benchmark's first point in native and
Docker net=host, at the two sizes its `size:` names, after a warm-up round) and prints, for
every judged quantity, its variance components per size (the round's shared state, what a
trial adds, the paired and unpaired SDs, a trial's cost) and the trial design the pilot
chooses beside the profile's sizes before the design was measured (the old one), each with
its expected interval half-width per minute of trials (the half-width of the last look's
interval scaled to one minute of the point's trials: smaller is better) and the trials a
side its comparison is expected to need.

    .venv/bin/python scripts/bench_design.py [--rounds 4] [--campaign FILE]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "lib"))

from overhead.campaign import inventory  # noqa: E402
from overhead.campaign.pilot import run_pilot  # noqa: E402

#: The quick profile's trial sizes before the pilot chose them (data/campaigns/profiles/quick.yml
#: at 4f9a062): the old design the new one is printed beside.
OLD = {"pxz": 64, "hpcc": 1600, "nuttcp": 2, "netperf": 2, "fio-seq": 1, "fio-rand": 1,
       "fio-mixed": 1, "redis": 100000, "mysql": 1}


def main() -> None:
    """Run the pilot and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--campaign", type=Path, default=ROOT / "data" / "campaigns" / "local-quick.yml")
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args()
    campaign = inventory.load(args.campaign)
    t0 = time.monotonic()
    result = run_pilot(campaign, rounds=args.rounds, progress=False)
    print(f"pilot of {campaign.name}: {time.monotonic() - t0:.0f} s (a resumed pilot reads "
          "its finished trials again)")
    print(result.text())
    from overhead.stats.components import SizeModel
    from overhead.stats.sequential import Design, expected_half_width, looks_needed
    from overhead.stats.verdicts import Margin

    print("\ntrial design, old (the profile's sizes before the pilot) beside the chosen one:")
    head = (f"  {'benchmark [quantity]':<30} {'size':>16} {'pairing':>8} {'SD/trial':>9} "
            f"{'n a side':>8} {'min':>6} {'half-width/min':>15}")
    print(head)
    for key, d in result.designs.items():
        bench, qty = key.split("#", 1)
        model = d.get("model")
        label = f"{bench} [{qty}]"
        if model is None:
            print(f"  {label:<30} {'one size':>16} {d['pairing']:>8} {100 * d['sd']:>8.1f}% "
                  f"{d['n'] or '-':>8}   {d['why']}")
            continue
        m = SizeModel(model["param"], tuple(model["sizes"]), model["fixed"], model["per_unit"],
                      model["c0"], model["c1"], model["pairing_gain"])
        looks = Design(tuple(d["looks"]))
        margin = Margin(*_margin(d["margin"]))
        cells = int(d.get("cells") or 3)
        old = OLD.get(bench)
        rows = []
        if old is not None:
            sd = m.sd(old, "none")
            n = looks_needed(0.0, sd, margin, looks)
            secs = m.seconds(old)
            hw = expected_half_width(sd, looks.n_max, looks.level(len(looks.looks) - 1))
            per = 100 * hw * math.sqrt(looks.n_max * cells * secs / 60)
            mins = n * cells * secs / 60 if n else math.inf
            rows.append(("old", f"{m.param}={old:g}", "none", sd, n, mins, per))
        rows.append(("chosen", f"{m.param}={d['size']:.4g}", d["pairing"], d["sd"], d["n"],
                     d["minutes"], d["width_per_minute"]))
        for which, size, pairing, sd, n, mins, per in rows:
            print(f"  {label + ' ' + which:<30} {size:>16} {pairing:>8} {100 * sd:>8.1f}% "
                  f"{n or '-':>8} {mins:>6.1f} {per:>14.1f}%")
        print(f"  {'':<30} {d['why']}")


def _margin(words: str) -> tuple[float, float]:
    """The margin's bounds in percent from its words ("+-3%" or "-3%/+5%")."""
    w = words.replace("\u00b1", "").replace("%", "")
    if "/" in w:
        lo, hi = w.split("/")
        return float(lo), float(hi)
    return -float(w), float(w)


if __name__ == "__main__":
    main()
