"""Statistics over the tidy measurements frame: pure functions used by every notebook.

``from overhead import stats; stats.summarize(df)``. Submodules:

- :mod:`~overhead.stats.summary`: per-group summaries and the central value (mean for costs,
  harmonic mean for rates, geometric mean for ratios);
- :mod:`~overhead.stats.ci`: Student-t, bootstrap (BCa) and distribution-free median intervals,
  and the normality-checked choice between t and bootstrap;
- :mod:`~overhead.stats.ratio`: overhead vs a baseline environment as a ratio of means, with
  Fieller, log-t and bootstrap intervals and the rule that chooses among them;
- :mod:`~overhead.stats.verdicts`: every comparison's verdict (equivalent within a margin,
  faster/slower, inconclusive with the trials that would decide it) with its evidence;
- :mod:`~overhead.stats.coverage`: the simulation that chose the interval methods;
- :mod:`~overhead.stats.significance`: Welch, Mann-Whitney, Kruskal-Wallis, Holm correction,
  effect sizes;
- :mod:`~overhead.stats.curves`: a curve per environment over a swept parameter, compared point
  by point with the baseline (mean, CI, ratio with its interval, verdict), and ordering rows in
  a given order of labels;
- :mod:`~overhead.stats.segments`: a monitor's time series cut into back-to-back runs;
- :mod:`~overhead.stats.distributions`: ECDFs (raw, binned, percentile lists) and quantile
  ratios;
- :mod:`~overhead.stats.littles`: Little's law for closed-loop load, latency fits, added
  latency per request;
- :mod:`~overhead.stats.saturation`: saturation throughput and the knee of the curve;
- :mod:`~overhead.stats.sampling`: adaptive sample size;
- :mod:`~overhead.stats.outliers`: warm-up and outlier flags (never deleting rows);
- :mod:`~overhead.stats.tables`: paper-style tables to Markdown, LaTeX and HTML.

Conventions: default group keys are benchmark, environment, variant, metric, unit (those
present) plus every p_* column, NA keys kept. Data that cannot support a number gives NaN and a
``reason``; structural problems raise the exceptions below (all subclasses of StatsError, itself
a ValueError). Bootstrap results are seeded (default seed 0) and reproducible.
"""

from overhead.stats._common import (
    DEFAULT_KEYS,
    BaselineNotFoundError,
    EmptyInputError,
    Estimate,
    Interval,
    MissingColumnError,
    PairingError,
    StatsError,
    UnitError,
    group_keys,
)
from overhead.stats.ci import (
    auto_interval,
    bootstrap_interval,
    intervals,
    log_t_interval,
    logit_t_interval,
    median_interval,
    normality,
    t_interval,
    welch_difference,
)
from overhead.stats.curves import CURVE_COLUMNS, curve, order_by
from overhead.stats.distributions import (
    Bins,
    Percentiles,
    ecdf,
    ecdf_frame,
    ecdf_from_bins,
    ecdf_from_percentiles,
    quantile_compare,
    quantile_ratios,
    weighted_ecdf,
    weighted_quantile,
)
from overhead.stats.littles import (
    added_latency,
    implied_latency,
    latency_fit,
    littles_law,
    littles_table,
)
from overhead.stats.outliers import (
    ModifiedZ,
    exclude_flagged,
    flag_outliers,
    flag_warmup,
    modified_zscores,
)
from overhead.stats.ratio import (
    RatioInterval,
    fieller,
    fieller_from_stats,
    log_ratio_interval,
    overhead,
    ratio_bootstrap,
    ratio_interval,
)
from overhead.stats.sampling import (
    Precision,
    TrialsNeeded,
    precision,
    precision_table,
    trials_needed,
)
from overhead.stats.saturation import knee, saturation
from overhead.stats.segments import SegmentationError, segment_runs
from overhead.stats.significance import (
    TestResult,
    cliffs_delta,
    cohens_d,
    compare,
    hedges_g,
    hodges_lehmann,
    holm,
    kruskal,
    kruskal_wallis,
    mann_whitney,
    welch,
)
from overhead.stats.summary import CENTER_METHODS, center, center_method, summarize
from overhead.stats.tables import (
    format_cell,
    overhead_cells,
    overhead_table,
    to_html,
    to_latex,
    to_markdown,
)
from overhead.stats.verdicts import (
    VERDICT_COLUMNS,
    VERDICTS,
    Margin,
    Verdict,
    check_verdicts,
    decide,
    trials_to_decide,
    verdict_words,
    verdicts,
)

__all__ = [
    "BaselineNotFoundError", "Bins", "CENTER_METHODS", "CURVE_COLUMNS", "DEFAULT_KEYS",
    "EmptyInputError", "Estimate", "Interval", "Margin", "MissingColumnError", "ModifiedZ",
    "PairingError", "Percentiles", "Precision", "RatioInterval", "SegmentationError", "StatsError",
    "TestResult", "TrialsNeeded", "UnitError", "VERDICTS", "VERDICT_COLUMNS", "Verdict",
    "added_latency", "auto_interval", "bootstrap_interval", "center", "center_method",
    "check_verdicts", "cliffs_delta", "cohens_d", "compare", "curve", "decide", "ecdf",
    "ecdf_frame", "ecdf_from_bins", "ecdf_from_percentiles", "exclude_flagged", "fieller",
    "fieller_from_stats", "flag_outliers", "flag_warmup", "format_cell", "group_keys", "hedges_g",
    "hodges_lehmann", "holm", "implied_latency", "intervals", "knee", "kruskal", "kruskal_wallis",
    "latency_fit", "littles_law", "littles_table", "log_ratio_interval", "log_t_interval",
    "logit_t_interval", "mann_whitney", "median_interval", "modified_zscores", "normality",
    "order_by", "overhead", "overhead_cells", "overhead_table", "precision", "precision_table",
    "quantile_compare", "quantile_ratios", "ratio_bootstrap", "ratio_interval", "saturation",
    "segment_runs", "summarize", "t_interval", "to_html", "to_latex", "to_markdown",
    "trials_needed", "trials_to_decide", "verdict_words", "verdicts", "weighted_ecdf",
    "weighted_quantile", "welch", "welch_difference",
]
