# %% [markdown]
# # RC25482 rebuilt: the write-up
#
# This notebook assembles the tables and figures written by the section notebooks
# (01 to 05) into one self-contained HTML page, `report.html`, in the same output folder.
# Run it last; `make reproduce` does. With `campaign` set it also writes the live report,
# `figures/<campaign>/report.html`: the known truths checked on the live data, then table by
# table the live numbers with their CIs beside the authors'.

# %% tags=["parameters"]
tidy_dir = ""
ibm_data = ""
out_dir = ""
published_values = ""
compare_published = True
campaign = ""
campaign_tidy = ""

# %%
import pandas as pd
from IPython.display import HTML, display

from overhead.rc25482 import out_dir as resolve_out
from overhead.rc25482 import report

out = resolve_out(out_dir or None)

# %% [markdown]
# Outputs that a section notebook did not produce are listed at the top of the page instead of
# failing the whole write-up.

# %%
gone = report.missing(out)
print("missing outputs:", ", ".join(gone) if gone else "none")
page = report.build(out, compared=compare_published, tidy=tidy_dir or None)
print(f"wrote {page} ({page.stat().st_size / 1e6:.1f} MB)")

# %%
display(HTML(f'<a href="{page}">{page.name}</a>'))


# %% [markdown]
# ## The live report (parameter `campaign`)

# %%
if campaign:
    from overhead.rc25482 import live, prepare

    lv = live.open_campaign(campaign, tidy_root=campaign_tidy or None, out_root=out.parent,
                            authors=tidy_dir or prepare(ibm_data or None))
    live_page = live.report(lv)
    print(f"wrote {live_page} ({live_page.stat().st_size / 1e6:.1f} MB)")
    display(pd.read_csv(lv.out / "known_truths.csv"))
    display(HTML(f'<a href="{live_page}">{live_page.name}</a>'))
else:
    print("no campaign given (parameter `campaign`): no live report")
