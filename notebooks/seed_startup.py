# %% [markdown]
# # Container start-up cost (seed 001), measured here
#
# The seed timed, with hyperfine, `unshare -n true`, `unshare -i true`, an mqueue mount and
# `crun run` with and without seccomp on the kernels of 2017 (4.5.5) and 2022 (5.19.15). The
# campaign `data/campaigns/startup.yml` measures the same cases here, plus runc, `docker run`
# with each runtime and the VM from power-on to SSH, every run kept. This notebook reads the
# ingested campaign and writes `figures/startup/` (tables, figures, report.html).
#
#     overhead run data/campaigns/startup.yml        # measure (resumes when run again)
#     papermill notebooks/seed_startup.ipynb out.ipynb -p campaign startup

# %% tags=["parameters"]
campaign = "startup"      # the campaign's name or YAML file
campaign_tidy = ""        # its tidy root (default data/tidy)
out_dir = ""              # output folder (default figures/startup)

# %%
import pandas as pd
from IPython.display import HTML, display

from overhead.seeds import _common, startup

study, tables, figs = startup.run(campaign, tidy_root=campaign_tidy or None, out=out_dir or None)
print(f"campaign {study.res.name}: {len(study.rows)} rows; output in {study.out}")

# %% [markdown]
# ## Medians and means per case, the seed's values beside
# Start-up times are skewed (a few slow runs), so the median comes with a distribution-free
# interval (order statistics); the mean with a log-t interval (a time is positive, so is its
# interval). `seed` is the seed's mean for the same command on its two kernels, with the line
# it was printed on.

# %%
with pd.option_context("display.max_colwidth", 80):
    display(tables["times"])
figs["medians"]

# %% [markdown]
# ## Every run

# %%
figs["ecdf_namespaces"]

# %%
figs["ecdf_containers"]

# %% [markdown]
# ## Seccomp's cost, the seed's arithmetic on our runs
# The difference with seccomp - without (ms, Welch 95% interval), and the verdict of "with"
# against "without", decided on the 95% interval of the ratio of means: `verdict_detail` gives
# it with n on each side, the interval and the margin.

# %%
with pd.option_context("display.max_colwidth", 120):
    display(_common.shown(tables["seccomp"]))

# %% [markdown]
# ## What could not be done here

# %%
for note in study.notes:
    print("-", note)
display(HTML(f'<a href="{study.out / "report.html"}">report.html</a>'))
