"""``overhead check``: whether a campaign file can run, before a single trial is started.

Loading already checks the file's shape (fields, types, references). This goes further, on the
controller alone (no host is contacted): the files it names exist (SSH keys, known_hosts, the
VM image, the campaign's files, which must not be readable by others), every benchmark's
runner exists and declares every parameter the benchmark sets, and the plan can be made.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path

from overhead.campaign.inventory import Campaign, VmEnv, is_file
from overhead.campaign.plan import make_plan
from overhead.runners import declared_params

__all__ = ["CheckResult", "check"]


@dataclass
class CheckResult:
    """What ``check`` found: problems (the campaign cannot run) and the plan's size."""

    campaign: Campaign
    problems: list[str] = field(default_factory=list)
    trials: int = 0
    cells: int = 0

    @property
    def ok(self) -> bool:
        """Whether nothing stands in the way of running the campaign."""
        return not self.problems

    def text(self) -> str:
        """Return a report: the campaign, its size, then each problem on a line."""
        c = self.campaign
        envs = ", ".join(f"{n} ({e.kind})" for n, e in c.environments.items())
        lines = [f"campaign {c.name}: {len(c.hosts)} hosts, environments {envs}",
                 f"{len(c.benchmarks)} benchmarks, {self.cells} cells, {self.trials} trials "
                 f"(profile {c.profile or 'none'}, hash {(c.sha256 or '')[:12]})"]
        lines += [f"problem: {p}" for p in self.problems] or ["ok: ready to run"]
        return "\n".join(lines)


def check(campaign: Campaign) -> CheckResult:
    """Check a loaded campaign on the controller (see the module's doc); never raises."""
    result = CheckResult(campaign)
    problems = result.problems
    for name, host in campaign.hosts.items():
        for what, path in (("key_file", host.key_file), ("known_hosts", host.known_hosts)):
            if path is not None and not is_file(Path(path)):
                problems.append(f"host {name}: {what} {path} does not exist")
    for name, env in campaign.environments.items():
        local = campaign.hosts[env.host].address in ("127.0.0.1", "localhost", "::1")
        # a remote host's image is on that host: only a local one can be checked from here
        if isinstance(env, VmEnv) and local and not is_file(Path(env.image) / "disk.raw"):
            problems.append(f"environment {name}: VM image {env.image} has no disk.raw "
                            f"(make hosts-up builds it)")
    for name, path in campaign.files.items():
        p = Path(path)
        if not is_file(p):
            problems.append(f"file {name}: {p} does not exist")
        elif p.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            problems.append(f"file {name}: {p} is readable by others (chmod 600 it)")
    runners = campaign.runners_dir()
    for name, bench in campaign.benchmarks.items():
        script = runners / f"{bench.runner}.sh"
        if not is_file(script):
            problems.append(f"benchmark {name}: no runner {script}")
            continue
        known = declared_params(script)
        extra = [p for p in bench.params if p not in known]
        if extra:
            problems.append(f"benchmark {name}: runner {bench.runner} has no parameter "
                            f"{', '.join(extra)} (it takes {', '.join(known)})")
        if not campaign.environments_of(name):
            problems.append(f"benchmark {name}: runs in no environment")
    plan = make_plan(campaign)
    result.trials, result.cells = len(plan.trials), len(plan.cells)
    return result
