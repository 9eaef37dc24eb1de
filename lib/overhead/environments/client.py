"""A load generator's endpoint: the runner runs on the client host against a server in an environment.

Benchmarks with a ``client`` (netperf, nuttcp, redis-benchmark, sysbench against MySQL) run
natively on that host and target a server the environment started
(:meth:`~overhead.environments.base.Environment.ensure_server`). The endpoint stands in for the
environment while a trial runs: commands and the trial directory are on the client, the labels
(environment, variant) and the diagnosis are the environment's.
"""

from __future__ import annotations

import time

from overhead.environments import posix
from overhead.environments.base import Context, Endpoint, Environment, Trial, TrialFailed, tail

__all__ = ["ClientEndpoint"]


class ClientEndpoint(Endpoint):
    """A load generator's trial, run on the client host against a server in ``env``.

    Parameters
    ----------
    ctx : Context
        The environment's context, with ``host`` the client host's connection.
    env : Environment
        The environment the server runs in.
    benchmark : str
        The benchmark's name.
    bench : Benchmark
        Its campaign entry (``client``, ``ready``, ``target_param``, ``monitor``...).
    client_host : str, optional
        The inventory host the load generator runs on (default: the benchmark's ``client``;
        the engine resolves ``client: other`` to a host).
    """

    def __init__(self, ctx: Context, env: Environment, benchmark: str, bench,
                 client_host: str | None = None):
        """Bind the environment, the benchmark and its client host."""
        super().__init__(ctx)
        self.env, self.benchmark, self.bench = env, benchmark, bench
        self.client_host = client_host or bench.client
        self.answered = False
        #: the server's address as the client reaches it
        self.target = env.address(self.client_host == env.spec.host)
        #: the client host's CPUs the load generator runs on, and the server side's (None:
        #: anywhere; set by the engine for each trial)
        self.cpus: str | None = None
        self.server_cpus: str | None = None

    # the environment's labels
    @property
    def name(self) -> str:
        """The environment's name."""
        return self.env.name

    @property
    def spec(self):
        """The environment's spec."""
        return self.env.spec

    @property
    def tidy_environment(self) -> str:
        """The environment's tidy label."""
        return self.env.tidy_environment

    @property
    def variant(self) -> str | None:
        """The environment's variant."""
        return self.env.variant

    def ready(self) -> None:
        """Copy the runners to the client once; wait (bounded) until the server answers."""
        if self.runners is None:
            self.runners = self.conn().ensure_runners(self.ctx.runners_dir)
            self.conn().exec(f"mkdir -p {self.ctx.folder}/trials", 60)
        if self.bench.ready and not self.answered:
            command = self.expand(self.bench.ready.replace("{host}", self.target), self.benchmark)
            deadline = time.monotonic() + 30
            status, out, err = 1, "", ""
            while time.monotonic() < deadline:
                status, out, err = self.conn().exec(command, 15)
                if status == 0:
                    self.answered = True
                    return
                time.sleep(0.5)
            raise TrialFailed(f"the server of {self.benchmark} in {self.env.name} did not answer "
                              f"`{command}` within 30 s", tail(out + err))

    def command(self, trial: Trial) -> str:
        """Return the runner's command on the client, aimed at the server.

        It runs on :attr:`cpus` (taskset) and in the environment's cgroup, where that exists.
        """
        params = self.params_of(trial)
        params.setdefault(self.bench.target_param, self.target)
        command = posix.runner_command(self.runners, trial.runner, self.trial_dir(trial), params,
                                       trial.timeout, pgid_file=self.trial_dir(trial) + ".pgid")
        # on the environment's host, the load generator's CPU time is the trial's too
        cgroup = self.env.ctx.cgroup if self.env.accounted else None
        return posix.in_cgroup(posix.taskset(command, self.cpus), cgroup)

    def diagnose(self, failure: TrialFailed) -> TrialFailed:
        """Let the environment say what happened to it."""
        return self.env.diagnose(failure)
