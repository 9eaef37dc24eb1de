# %% [markdown]
# # Explore: any benchmark, metric and environment, without writing code
#
# Pick the data (the authors' tidy tables of RC25482, or any measured campaign in `data/tidy/`),
# a benchmark, a metric, optionally a parameter for the x axis, and the environments. Every other
# parameter that varies is held at one value (a dropdown each), so that only like runs are
# pooled. The figure shows each environment's mean with its 95% confidence interval, and its
# hover box the verdict against Native. The table gives n, mean and CI, and against Native the
# ratio of means with the 95% interval the verdict is decided on, the equivalence margin
# (`data/reference/margins.yml`) and the verdict: `equivalent` (the interval inside the margin),
# `faster`/`slower`, `inconclusive` (with about how many trials would decide it) or `not
# tested`; `verdict_detail` says it in words with n, the interval and the margin. **Export**
# writes the figure (PNG, SVG, PDF) and its data (CSV, verdicts included) into
# `figures/explore/`.
#
# With papermill it renders one view (and exports it when `export` is True):
#
#     papermill notebooks/explore.ipynb out.ipynb -p benchmark redis -p metric throughput \
#         -p parameter p_clients -p fixed "p_command=GET" -p export True

# %% tags=["parameters"]
source = "ibm"                        # "ibm" (the authors' data) or a campaign's name
benchmark = "mysql"
metric = "transaction_rate"
parameter = "p_threads"               # the x axis ("" for one bar per environment)
environments = ""                     # comma-separated labels ("" for all)
fixed = ""                            # held parameters, "p_series=performance-governor; ..."
interactive = True                    # the widgets (False: the figure and table only)
export = False                        # write figures/explore/<view>.{png,svg,pdf,csv}
tidy_root = ""                        # default data/tidy
authors_tidy = ""                     # the authors' tidy folder (default <tidy_root>/ibm)
out_dir = ""                          # default figures/explore

# %%
from IPython.display import display

from overhead.explore import Explorer, View, parse_environments, parse_fixed

explorer = Explorer(tidy_root or None, out_dir or None, authors=authors_tidy or None)
view = explorer.resolve(View(source, benchmark, metric, parameter,
                             parse_environments(environments), parse_fixed(fixed)))
print("sources:", ", ".join(explorer.sources()))
print(view)

# %%
if interactive:
    display(explorer.widget(view))
else:
    table = explorer.summary(view)
    display(explorer.figure(view, table))
    display(explorer.shown(view, table))

# %%
if export:
    for path in explorer.export(view):
        print("wrote", path)
