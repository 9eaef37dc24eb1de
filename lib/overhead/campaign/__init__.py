"""The campaign engine: measure on a user's hosts.

A campaign file (YAML) names hosts, environments (native, Docker, a QEMU VM, or a static SSH
host) and benchmarks with parameter grids. :mod:`~overhead.campaign.inventory` reads it into
pydantic models; :mod:`~overhead.campaign.plan` expands it into trials in randomized interleaved
rounds; :mod:`~overhead.campaign.execute` runs them over SSH (fabric), one worker per host, in
the environments of :mod:`overhead.environments`, with an append-only
:mod:`~overhead.campaign.manifest` so that a crashed campaign resumes without losing or
repeating a finished trial; :mod:`~overhead.campaign.layout` states the raw tree they write,
which :mod:`~overhead.campaign.ingest` turns into tidy tables and
:mod:`~overhead.campaign.status` counts; :mod:`~overhead.campaign.analysis` checks the tables
for order effects and noise.
"""
