# %% [markdown]
# # The sysbench suite (seed 004), measured here
#
# The seed compared a physical desktop, an LXC container and a VirtualBox VM with sysbench
# (cpu, memory, threads, mutex, fileio), `hdparm -tT` and nginx + ab, and fileio on ext4, xfs
# and btrfs. The campaign `data/campaigns/sysbench-suite.yml` measures every one of them here
# on native, an LXC system container, Docker and the local VM. The seed's LXC values stand
# beside our LXC rows (beside Docker in a campaign without LXC) and VirtualBox's beside our VM
# rows, as references: what compares is each one's difference from its own physical host. This
# notebook writes `figures/sysbench_suite/`.
#
#     overhead run data/campaigns/sysbench-suite.yml
#     papermill notebooks/seed_sysbench.ipynb out.ipynb -p campaign sysbench-suite

# %% tags=["parameters"]
campaign = "sysbench-suite"   # the campaign's name or YAML file
campaign_tidy = ""            # its tidy root (default data/tidy)
out_dir = ""                  # output folder (default figures/sysbench_suite)

# %%
import pandas as pd
from IPython.display import HTML, display

from overhead.seeds import _common, sysbench_suite

study, tables, figs = sysbench_suite.run(campaign, tidy_root=campaign_tidy or None,
                                         out=out_dir or None)
print(f"campaign {study.res.name}: {len(study.rows)} rows; output in {study.out}")

# %% [markdown]
# ## Every seed metric per environment
# n trials, mean with its 95% CI, and against native the ratio's 95% interval (as a percent
# difference), the margin (`data/reference/margins.yml`: the seed's own claims of sameness for
# CPU and memory, the default elsewhere) and the verdict decided on that interval; the seed's
# value for the counterpart setup with its own difference from its physical host.

# %%
with pd.option_context("display.max_rows", 200, "display.max_colwidth", 60):
    display(_common.display(tables["metrics"]))

# %%
for stem in sysbench_suite.FIGURES:
    if stem in figs:
        display(figs[stem])

# %% [markdown]
# ## fileio on ext4, xfs and btrfs (native, loop devices)

# %%
display(_common.display(tables["filesystems"]))
figs.get("filesystems")

# %% [markdown]
# ## nginx latency at a constant rate (wrk2; not the seed's)
# The seed reported ab's mean time per request only. wrk2 asks nginx for the same file at a
# constant rate and prints its whole HdrHistogram: each trial's latency CDF below (logit axis:
# the median and the tail to 99.99% both visible), then its 50th to 99.9th percentiles
# against native, each with n, interval, margin and verdict.

# %%
figs.get("latency_cdf")

# %%
display(_common.display(tables["latency"]))

# %% [markdown]
# ## Coverage: every seed metric, every environment

# %%
with pd.option_context("display.max_rows", 200):
    display(tables["coverage"])
display(HTML(f'<a href="{study.out / "report.html"}">report.html</a>'))
