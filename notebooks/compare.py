# %% [markdown]
# # Compare campaigns
#
# The same benchmarks measured twice or more (another kernel, Docker, QEMU or machine): each
# campaign's overhead against its own native run, and how each overhead moved, as the ratio of
# ratios R = (env_B / native_B) / (env_A / native_A) with its 95% interval and a verdict on the
# quantity's equivalence margin. What differs between the campaigns (facts and settings) is
# listed beside; a workload only one campaign ran is not compared. Then, for three or more
# campaigns, their history: every overhead in order and the steps found in it.
#
#     overhead compare cpus cpus-limited           # the same from the command line
#     papermill notebooks/compare.ipynb out.ipynb -p campaigns "cpus cpus-limited"

# %% tags=["parameters"]
campaigns = ""        # the campaigns to compare, space-separated; the first is the reference
benchmarks = ""       # only these benchmarks (space-separated; default: every judged one)
baseline = "native"   # the environment every overhead is measured against
history_by = "started"  # order of the history: "started" or a fact (kernel, docker_version)
campaign_tidy = ""    # the tidy root (default data/tidy)
out_dir = ""          # output folder (default figures/compare-<A>-vs-<B>)

# %%
import pandas as pd
from IPython.display import HTML, display

from overhead import compare, history
from overhead.store import Store

store = Store(campaign_tidy or None)
names = campaigns.split() or store.names(measured=True)
print(f"tidy root {store.root}: {len(store.names(measured=True))} campaigns; comparing {', '.join(names)}")
c = compare.compare(names, store=store, baseline=baseline, benchmarks=benchmarks.split() or None)
out = compare.report(c, out_dir or compare.out_folder(c.campaigns))

# %% [markdown]
# ## How each overhead moved

# %%
for paragraph in compare.summary_words(c):
    print(paragraph, end="\n\n")
with pd.option_context("display.max_colwidth", 80, "display.max_rows", 200):
    display(compare.table(c))
display(HTML(f'<img src="{out.parent / "changes.png"}" style="max-width:100%">'))

# %% [markdown]
# ## What differs between the campaigns, and what was not compared

# %%
with pd.option_context("display.max_colwidth", 80, "display.max_rows", 200):
    display(c.differences)
for line in c.refused:
    print("not compared:", line)

# %% [markdown]
# ## History (three or more campaigns)

# %%
if len(names) >= 3:
    h = history.history(names, store=store, by=history_by, baseline=baseline,
                        benchmarks=benchmarks.split() or None)
    hout = history.report(h, out.parent / "history")
    for line in history.step_words(h):
        print(line)
    display(HTML(f'<img src="{hout.parent / "history.png"}" style="max-width:100%">'))
else:
    print("a history needs three or more campaigns")
display(HTML(f'<a href="{out}">report.html</a>'))
