"""The neighbouring studies that motivated the project, measured through the campaign engine.

One module per seed study, on a shared part (:mod:`overhead.seeds._common`: a campaign opened
as a study, the published values of ``data/reference/<study>.csv`` beside the measured ones,
figures and the report page):

- :mod:`~overhead.seeds.startup`: container start-up cost (seeds/001: hyperfine timings of
  ``crun run``, ``unshare``, seccomp, mqueue);
- :mod:`~overhead.seeds.fsync`: fsync IOPS natively, in Docker, in the VM, over NFS and in a
  VM whose disk is on NFS, with the per-request decomposition (seeds/002);
- :mod:`~overhead.seeds.sysbench_suite`: sysbench, hdparm and nginx + ab on native, Docker
  and the VM (seeds/004).

Each writes ``figures/<study>/`` (tables as CSV and Markdown, figures as PNG/SVG/PDF and
plotly HTML, report.html).
"""
