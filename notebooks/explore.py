# %% [markdown]
# # Explore: any benchmark, metric and environment, without writing code
#
# Pick the data (the authors' tidy tables of RC25482, or any measured campaign in `data/tidy/`),
# a benchmark, a metric, optionally a parameter for the x axis, and the environments. Every other
# parameter that varies is held at one value (a dropdown each), so that only like runs are
# pooled. The figure shows each environment's mean with its 95% confidence interval; the table
# gives n, mean, CI, the ratio to Native with its bootstrap interval, Welch's test with Holm's
# correction and the verdict. **Export** writes the figure (PNG, SVG, PDF) and its data (CSV)
# into `figures/explore/`.
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
    display(table)

# %%
if export:
    for path in explorer.export(view):
        print("wrote", path)
