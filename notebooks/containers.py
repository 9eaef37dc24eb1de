# %% [markdown]
# # Containers in 2026 beside 2014's
#
# The paper compared Docker 1.0, KVM and native in 2014. The campaign
# `data/campaigns/containers-2026.yml` runs its benchmarks (profile quick) and iperf3 here in
# Docker (host networking and NAT), Podman rootful (host, netavark's bridge) and rootless
# (slirp4netns, pasta), and an LXC system container, plus start-up cases natively. This notebook
# reads the ingested campaign and writes `figures/containers_2026/` (tables, figures,
# report.html).
#
#     overhead run data/campaigns/containers-2026.yml   # measure (resumes when run again)
#     papermill notebooks/containers.ipynb out.ipynb -p campaign containers-2026

# %% tags=["parameters"]
campaign = "containers-2026"   # the campaign's name (data/campaigns/<name>.yml) or YAML file
profile = ""                   # the profile it was measured with, if not the file's
campaign_tidy = ""             # its tidy root (default data/tidy)
out_dir = ""                   # output folder (default figures/containers_2026)

# %%
import pandas as pd
from IPython.display import HTML, display

from overhead.seeds import containers

study, tables, figs = containers.run(campaign, profile=profile or None,
                                     tidy_root=campaign_tidy or None, out=out_dir or None)
print(f"campaign {study.res.name}: {len(study.rows)} rows; output in {study.out}")

# %% [markdown]
# ## Start-up cost
# Every run of every trial; the median with a distribution-free 95% interval.

# %%
with pd.option_context("display.max_colwidth", 80):
    display(tables["startup"])
figs["startup"]

# %% [markdown]
# ## The network of rootless containers
# Round trips and bulk TCP from a client on this machine, against native and against Docker's
# NAT (or host networking), each with n, the 95% interval of the ratio and its verdict; then
# what the data says of each rootless network and what carries it.

# %%
with pd.option_context("display.max_colwidth", 120):
    display(containers.shown(tables["network"]))
    display(tables["forwarders"])
for sentence in containers.network_words(tables["network"], tables["forwarders"]):
    print(sentence, end="\n\n")
figs.get("network")

# %% [markdown]
# ## Every judged quantity

# %%
with pd.option_context("display.max_colwidth", 120, "display.max_rows", 400):
    display(containers.shown(tables["verdicts"]))
display(HTML(f'<a href="{study.out / "report.html"}">report.html</a>'))
