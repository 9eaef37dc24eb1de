"""overhead: measure what virtualization costs, in two layers.

The generic toolkit: :mod:`~overhead.schema` (the tidy data model), :mod:`~overhead.parsers`
(one module per tool), :mod:`~overhead.ingest` (a raw tree plus a rule set gives the tidy
Parquet), :mod:`~overhead.tidy` (load and filter), :mod:`~overhead.runners` (the trial
contract), :mod:`~overhead.stats`, :mod:`~overhead.plots`, :mod:`~overhead.environments`
(labels, order, colours), :mod:`~overhead.reference` (published values of any study),
:mod:`~overhead.prose` (numbers in sentences), :mod:`~overhead.errors` (one root,
:class:`~overhead.errors.OverheadError`) and :mod:`~overhead.cli`.

On top of it, one package per study: :mod:`overhead.rc25482` rebuilds IBM RC25482 from the
authors' raw data. The toolkit never imports a study; import-linter contracts in pyproject.toml
say so and ``make lint`` checks them.
"""
