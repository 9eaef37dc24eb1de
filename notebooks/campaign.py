# %% [markdown]
# # Measure: run a campaign on real hosts, then ingest it
#
# This notebook measures. It loads a campaign file (hosts, environments, benchmarks), checks it,
# shows the plan, runs every trial that is not done yet over SSH (with the engine's progress
# bar), and ingests the raw trees into `data/tidy/<campaign>/`. Run it again after an
# interruption and it resumes: finished trials are never re-run. The command line does the
# same with the same library functions: `overhead check | plan | run | status FILE`.
#
#     papermill --engine overhead notebooks/campaign.ipynb out.ipynb -p campaign data/campaigns/local-quick.yml
#
# (`--engine overhead` passes a terminal's Ctrl-C on to this notebook's kernel, which lets the
# trials in flight finish and stops; JupyterLab's interrupt button does the same here.)
#
# Parameters: `campaign` (the YAML), `hosts` (overrides per host, e.g.
# `{"local": {"address": "10.0.0.5"}}`), `trials` and `profile` (None: the file's), `raw`
# (the folder of raw trees; default `data/raw`), `tidy` (the folder of tidy trees; default
# `data/tidy`), `retries` (re-runs allowed for a failed trial), `isolation` (fields of the
# campaign's isolation replaced, e.g. `{"reruns": 0}`). Another profile than the file's renames
# the campaign `<name>-<profile>`.

# %% tags=["parameters"]
campaign = "data/campaigns/local-quick.yml"
hosts = {}
trials = None
profile = None
raw = ""
tidy = ""
retries = 1
isolation = {}

# %%
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

from overhead.campaign import check as checks
from overhead.campaign import inventory, status
from overhead.campaign.execute import run_campaign
from overhead.campaign.ingest import ingest_campaign
from overhead.campaign.plan import make_plan
from overhead.errors import HostBusy
from overhead.paths import DATA, ROOT, TIDY

overrides = {k: v for k, v in {"hosts": hosts or None, "trials": trials, "profile": profile,
                               "isolation": isolation or None}.items() if v is not None}
path = Path(campaign) if Path(campaign).is_absolute() else ROOT / campaign
spec = inventory.load(path, overrides)
raw_root = Path(raw) if raw else DATA / "raw"
tidy_dir = (Path(tidy) if tidy else TIDY) / spec.name

# %% [markdown]
# ## Check and plan
# Files, runners and their parameters are checked on this machine before any host is
# contacted; the plan is every trial in the order it runs (randomized interleaved rounds).

# %%
result = checks.check(spec)
print(result.text())
if not result.ok:
    raise SystemExit(f"{campaign}: not runnable, see the problems above")
plan = make_plan(spec)
cells = pd.DataFrame([{"environment": t.environment, "benchmark": t.benchmark}
                      for t in plan.trials])
display(cells.value_counts().unstack(fill_value=0))

# %% [markdown]
# ## Run (resumes where it stopped)

# %%
try:
    outcome = run_campaign(spec, raw_root=raw_root, retries=retries, progress=True)
except HostBusy as busy:
    # said, not fought: what was measured is ingested and reported; the verdicts it gives are
    # valid (every look is accounted for), the rest stopped saying the host was busy
    print(f"{spec.name}: {busy}")
    outcome = None
if outcome is not None:
    display(Markdown(
        f"**{spec.name}**: {outcome.done} trials run now, {outcome.skipped_done} done before, "
        f"{len(outcome.failures)} failed, of {outcome.planned} planned, in {outcome.seconds:.0f} s"))
    for tid, cause in sorted(outcome.failures.items()):
        print(f"failed {tid}: {cause}")
    if outcome.interrupted:
        raise SystemExit("interrupted: run the notebook again to resume")

# %% [markdown]
# ## Ingest, and what is where

# %%
ingested = ingest_campaign(raw_root / spec.name, tidy_dir)
print(f"ingested {ingested.trials_read} new trials ({ingested.rows} rows) into {tidy_dir}")
print(status.status(spec, raw_root).text())
trials_table = pd.read_parquet(tidy_dir / "trials.parquet")
display(trials_table.groupby(["environment", "variant", "benchmark", "status"], dropna=False)
        .size().unstack("status", fill_value=0))
