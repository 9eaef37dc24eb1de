# %% [markdown]
# # fsync IOPS through Docker, a VM and NFS (seed 002), measured here
#
# The seed ran `pg_test_fsync` on a physical disk (fdatasync 11,869 ops/s), over NFS (1,342)
# and in a KVM guest whose disk image was on NFS (759), and took one synchronous 8 KiB write
# apart into device, network and VM time. The campaign `data/campaigns/fsync.yml` measures it
# here natively, in Docker, in the VM (cache=none and writeback), with the VM's disk image on a
# loopback NFS export and with the export mounted by the guest. This notebook reads the
# ingested campaign and writes `figures/fsync/`.
#
#     overhead run data/campaigns/fsync.yml
#     papermill notebooks/seed_fsync.ipynb out.ipynb -p campaign fsync

# %% tags=["parameters"]
campaign = "fsync"        # the campaign's name or YAML file
campaign_tidy = ""        # its tidy root (default data/tidy)
out_dir = ""              # output folder (default figures/fsync)

# %%
import pandas as pd
from IPython.display import HTML, display

from overhead.seeds import _common, fsync

study, tables, figs = fsync.run(campaign, tidy_root=campaign_tidy or None, out=out_dir or None)
print(f"campaign {study.res.name}: {len(study.rows)} rows; output in {study.out}")

# %% [markdown]
# ## Synchronous 8 KiB writes per second, every method and environment
# Each environment against native: n, mean with its 95% CI, the ratio's 95% interval (as a
# percent difference), the margin and the verdict decided on that interval; the seed's value
# beside the environment that stands for its setup, with the seed's own difference from its
# physical disk.

# %%
with pd.option_context("display.max_colwidth", 60):
    display(_common.display(tables["methods"]))
figs.get("methods")

# %% [markdown]
# ## One write taken apart
# Each part is a measured difference of per-request times with its Welch interval; the two
# parts that compare environments (the VM with native, the VM on NFS with the VM) carry their
# verdict, decided on the ratio of mean per-request times (`verdict_detail`: n, interval,
# margin). The seed's parts are recomputed from its printed rates.

# %%
display(_common.shown(tables["decomposition"]))
figs["decomposition"]

# %%
display(_common.shown(tables["decomposition_fdatasync"]))
display(HTML(f'<a href="{study.out / "report.html"}">report.html</a>'))
