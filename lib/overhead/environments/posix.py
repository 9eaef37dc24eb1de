"""A runner on any POSIX endpoint: its command line, the clean-up before it, the endpoint's facts.

These functions build the POSIX shell command lines the campaign executor runs over SSH (on a
host, in a container, in a guest, on a load generator's client); they run nothing themselves.
Every benchmark command is wrapped in ``timeout -k``, so a hung tool is killed on the host even
when the controller is gone.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping

__all__ = ["CGROUP_ROOT", "FACT_FIELDS", "HOST_FACT_FIELDS", "TRIAL_MARK", "VIRT_SNIPPET", "cgroup_join",
           "cgroup_make_command", "cgroup_name", "cgroup_remove_command", "facts_command",
           "host_facts", "host_phrase", "in_cgroup", "parse_facts", "prepare_command",
           "runner_command", "sweep_command", "taskset", "timeout_wrap"]

#: Seconds between the TERM that ``timeout`` sends and the KILL that follows.
KILL_AFTER = 10
#: The environment variable that marks every process of a trial's runner (its value is the
#: trial directory): a child that left the runner's session (``setsid``) keeps its environment,
#: so :func:`sweep_command` finds and kills it when the trial ends.
TRIAL_MARK = "OVERHEAD_TRIAL"


#: Shell code setting ``$cgr`` to the root of the CPU-accounting cgroup hierarchy: cgroup v1's
#: cpuacct controller (``/sys/fs/cgroup/cpuacct``, or ``cpu,cpuacct``), else a cgroup v2 root
#: (``cpu.stat``'s ``usage_usec`` is kept in every v2 cgroup); empty when there is neither.
CGROUP_ROOT = ('cgr=; for d in /sys/fs/cgroup/cpuacct /sys/fs/cgroup/cpu,cpuacct; do '
               '[ -r "$d/cpuacct.usage" ] && { cgr=$d; break; }; done; '
               '[ -z "$cgr" ] && [ -r /sys/fs/cgroup/cgroup.controllers ] && cgr=/sys/fs/cgroup')


def cgroup_name(campaign: str, environment: str) -> str:
    """Return the cgroup (below the accounting root) of an environment's processes on its host.

    Everything a trial of the environment runs on that host goes there: a native runner and
    servers, a container (``docker run --cgroup-parent``), a VM's QEMU process, a load
    generator aimed at the environment. The CPU time the host spent during a trial outside that
    cgroup is what else ran beside it (:func:`overhead.campaign.analysis.interference`).
    """
    return f"overhead/{campaign}/{environment}"


def cgroup_make_command(name: str) -> str:
    """Return the command creating cgroup ``name``; it prints ``cgroup=<path>`` or ``cgroup=unavailable``.

    Creating one needs root (a host where it fails has no per-trial accounting: its trials'
    outside CPU time is not measured, never 0).
    """
    q = shlex.quote(name)
    return (f"{CGROUP_ROOT}; if [ -n \"$cgr\" ] && mkdir -p \"$cgr\"/{q} 2>/dev/null && "
            f"[ -w \"$cgr\"/{q}/cgroup.procs ]; then echo \"cgroup=$cgr/\"{q}; "
            "else echo cgroup=unavailable; fi")


def cgroup_remove_command(name: str) -> str:
    """Return the command removing cgroup ``name`` and its empty parents (best effort).

    The cgroup itself is tried for up to 5 s: a process that just exited (QEMU, a container's
    runc) leaves it a moment later. A parent that still holds another environment's stays.
    """
    parts = name.split("/")
    leaf = shlex.quote(name)
    parents = ["/".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]
    rm = "; ".join(f'rmdir "$cgr"/{shlex.quote(d)} 2>/dev/null' for d in parents)
    return (f"{CGROUP_ROOT}; if [ -n \"$cgr\" ]; then i=0; while [ -d \"$cgr\"/{leaf} ] && "
            f"! rmdir \"$cgr\"/{leaf} 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; "
            f"i=$((i+1)); done; {rm}; fi; true")


def cgroup_join(name: str) -> str:
    """Return shell code moving the current shell (``$$``) into cgroup ``name``, if it exists.

    Only for a shell of its own (``sh -c``): in a subshell ``$$`` is the parent's pid.
    """
    q = shlex.quote(name)
    return (f"{CGROUP_ROOT}; [ -n \"$cgr\" ] && [ -d \"$cgr\"/{q} ] && "
            f"echo $$ > \"$cgr\"/{q}/cgroup.procs 2>/dev/null; true")


def in_cgroup(command: str, name: str | None) -> str:
    """Return ``command`` run by a shell that first joins cgroup ``name`` (None: as it is)."""
    if name is None:
        return command
    return f"sh -c {shlex.quote(cgroup_join(name) + '; ' + command)}"


def taskset(command: str, cpus: str | None) -> str:
    """Return ``command`` run on the CPUs ``cpus`` (a list like ``0`` or ``2-3``; None: as it is)."""
    if cpus is None:
        return command
    return f"taskset -c {shlex.quote(cpus)} sh -c {shlex.quote(command)}"


def timeout_wrap(command: str, seconds: float) -> str:
    """Wrap a command line in ``timeout -k`` (TERM after ``seconds``, KILL 10 s later)."""
    return f"timeout -k {KILL_AFTER} {max(1, round(seconds))} {command}"


def runner_command(runners_dir: str, runner: str, outdir: str, params: Mapping[str, object],
                   timeout: float, pgid_file: str | None = None) -> str:
    """Return the command line that runs a runner into ``outdir`` under a timeout.

    Parameters
    ----------
    runners_dir : str
        The folder holding the runner scripts on the endpoint.
    runner : str
        The runner's name (``sysbench`` for ``sysbench.sh``).
    outdir : str
        The trial directory the runner creates (it must not exist).
    params : mapping
        name -> value, passed as ``name=value`` words (booleans as 1/0).
    timeout : float
        Seconds before the runner is killed.
    pgid_file : str, optional
        Run the runner in a session of its own and write its process group id here, so that
        :func:`prepare_command` can kill what is left of it if the controller died (a trial
        that was running then is run again from scratch, never beside its old self). Every
        process of the runner then carries ``OVERHEAD_TRIAL=<outdir>`` in its environment, and
        when the runner ends every process still carrying it is killed (:func:`sweep_command`:
        a child that escaped the session with ``setsid``). The shell waits for the session
        (it is not replaced by it), so a runner killed by a signal exits 128 + the signal's
        number wherever it runs: ``timeout``'s SIGKILL after a TERM-ignoring runner is 137, also
        where the shell leads a process group (``docker exec``), in which ``setsid -w`` said 9.

    Returns
    -------
    str
        ``cd / && timeout -k 10 T sh DIR/RUNNER.sh OUTDIR name=value ...``, shell-quoted.
    """
    words = ["sh", f"{runners_dir}/{runner}.sh", outdir]
    words += [f"{k}={_word(v)}" for k, v in params.items()]
    inner = timeout_wrap(shlex.join(words), timeout)
    if pgid_file is None:
        return "cd / && " + inner
    script = f"echo $$ > {shlex.quote(pgid_file)}; exec {inner}"
    mark = shlex.quote(f"{TRIAL_MARK}={outdir}")
    return (f"cd / && env {mark} setsid -w sh -c {shlex.quote(script)}; s=$?; "
            f"{sweep_command(outdir)}; exit $s")


def sweep_command(outdir: str) -> str:
    """Return shell code killing every process left of the runner of the trial into ``outdir``.

    Those are the processes whose environment holds ``OVERHEAD_TRIAL=<outdir>``
    (:func:`runner_command` sets it; ``setsid`` and daemonizing keep it), read from
    /proc/PID/environ with one GNU ``grep -z``; the benchmark servers an environment starts
    and the remote shell never carry it. Up to five passes, for children forked meanwhile.
    """
    mark = shlex.quote(f"{TRIAL_MARK}={outdir}")
    return (f"i=0; while [ $i -lt 5 ] && p=$(grep -lxzF -e {mark} /proc/[0-9]*/environ "
            "2>/dev/null | cut -d/ -f3) && [ -n \"$p\" ]; do kill -KILL $p 2>/dev/null; "
            "sleep 0.1; i=$((i+1)); done")


def prepare_command(outdir: str, pgid_file: str, *, sweep: bool = True) -> str:
    """Return the command that clears the way for a (re-)run of a trial into ``outdir``.

    Kills the process group of an earlier attempt that may still run (its controller died) and
    every process left of it (:func:`sweep_command`), then removes its trial directory, partial
    directories and process-group file. The trial directory's parent must exist (the
    environment creates it when it starts).

    ``sweep=False`` only removes the files: for a trial the campaign never started (its
    manifest has no ``running`` record of it), no runner of it can be left, and the sweep,
    which reads every process's environment, was most of this command's time.
    """
    q, p = shlex.quote(outdir), shlex.quote(pgid_file)
    if not sweep:
        return f"rm -rf {q} {q}.partial.* {p}"
    return (f"if [ -s {p} ]; then kill -KILL -$(cat {p}) 2>/dev/null; fi; "
            f"{sweep_command(outdir)}; rm -rf {q} {q}.partial.* {p}")


def _word(value: object) -> str:
    """Return a parameter value as a runner word: booleans as 1/0, numbers as written."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


#: The facts :func:`facts_command` prints, in order.
FACT_FIELDS = ("kernel", "cpu_model", "cpu_flags", "cores", "mem_total_bytes", "governor",
               "mitigations", "virt_vm", "virt_container", "virt_how")

#: POSIX sh setting ``vm``, ``ct`` and ``how``: what virtualization runs the endpoint, asked
#: twice, because one answer hides the other (plain ``systemd-detect-virt`` names the
#: innermost layer: a container on a VM says only ``docker``).
#:
#: - ``vm``: ``systemd-detect-virt --vm`` (``kvm``, ``qemu``, ``none``...); without it
#:   ``hypervisor`` when the CPU flag of that name says a hypervisor runs the endpoint (its kind
#:   cannot be told), else ``unavailable``.
#: - ``ct``: ``systemd-detect-virt --container`` (``docker``, ``podman``, ``lxc``, ``none``...);
#:   without it ``docker`` for a /.dockerenv, ``podman`` for a /run/.containerenv, the name in
#:   /run/systemd/container, else ``unavailable``.
#: - ``how``: how each was told, with the evidence files present (systemd-detect-virt's
#:   ``docker`` is itself read from /.dockerenv, which an image built from a Docker image keeps).
#:
#: ``runners/common.sh`` (rn_host_facts) answers the same way for a trial's meta; a test holds
#: the two to the same answers.
VIRT_SNIPPET = r"""
vm=unavailable; ct=unavailable; how_vm='no evidence'; how_ct='no evidence'
if command -v systemd-detect-virt >/dev/null 2>&1; then
  v=$(systemd-detect-virt --vm 2>/dev/null); [ -n "$v" ] && vm=$v && how_vm='systemd-detect-virt --vm'
  v=$(systemd-detect-virt --container 2>/dev/null); [ -n "$v" ] && ct=$v && how_ct='systemd-detect-virt --container'
fi
if [ "$vm" = unavailable ] && grep -qw hypervisor /proc/cpuinfo 2>/dev/null; then
  vm=hypervisor; how_vm='cpu flag hypervisor (kind unavailable)'
fi
if [ "$ct" = unavailable ]; then
  if [ -f /.dockerenv ]; then ct=docker; how_ct=/.dockerenv
  elif [ -f /run/.containerenv ]; then ct=podman; how_ct=/run/.containerenv
  elif [ -s /run/systemd/container ]; then ct=$(head -n 1 /run/systemd/container); how_ct=/run/systemd/container
  fi
fi
ev=; for f in /.dockerenv /run/.containerenv; do [ -e $f ] && ev="$ev $f"; done
grep -qw hypervisor /proc/cpuinfo 2>/dev/null && ev="$ev cpu-flag:hypervisor"
how="vm: $how_vm, container: $how_ct, evidence present:${ev:- none}"
""".strip()


def facts_command() -> str:
    """Return a POSIX sh command printing the endpoint's facts as ``name=value`` lines.

    Kernel, CPU model and flags, online cores, memory, cpufreq governor, the kernel's
    mitigations (from /sys/devices/system/cpu/vulnerabilities) and the virtualization under
    the endpoint as two answers, ``virt_vm`` and ``virt_container``, with ``virt_how`` saying
    how each was told (:data:`VIRT_SNIPPET`); a fact the endpoint cannot tell is printed as
    ``unavailable``.
    """
    return r"""
printf 'kernel=%s\n' "$(uname -sr)"
printf 'cpu_model=%s\n' "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
printf 'cpu_flags=%s\n' "$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
printf 'cores=%s\n' "$(nproc)"
printf 'mem_total_bytes=%s\n' "$(awk '/^MemTotal:/ {print $2 * 1024}' /proc/meminfo)"
g=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
printf 'governor=%s\n' "$( [ -r $g ] && cat $g || echo unavailable)"
v=/sys/devices/system/cpu/vulnerabilities
printf 'mitigations=%s\n' "$( [ -d $v ] && for f in $v/*; do printf '%s: %s; ' "${f##*/}" "$(cat "$f")"; done || echo unavailable)"
""".strip() + "\n" + VIRT_SNIPPET + "\n" + r"""
printf 'virt_vm=%s\nvirt_container=%s\nvirt_how=%s\n' "$vm" "$ct" "$how"
""".strip()


#: The facts of the host under a VM or a container recorded beside the endpoint's own, as
#: ``host_<fact>`` (:func:`host_facts`).
HOST_FACT_FIELDS = ("kernel", "virt_vm", "virt_container", "virt_how")


def host_facts(facts: Mapping[str, str]) -> dict[str, str]:
    """Return a host's facts (:func:`facts_command`'s) named as the host's: ``host_kernel``...

    Only :data:`HOST_FACT_FIELDS`; one the host did not tell is ``unavailable``.
    """
    return {f"host_{k}": facts.get(k) or "unavailable" for k in HOST_FACT_FIELDS}


def host_phrase(facts: Mapping[str, object]) -> str | None:
    """Say in words what virtualization runs an endpoint, from ``virt_vm`` and ``virt_container``.

    ``virt_vm=kvm, virt_container=docker`` (with /.dockerenv among ``virt_how``'s evidence)
    -> ``"a VM (kvm), container: docker (/.dockerenv present)"``; ``none`` on both -> ``"not
    a VM, not in a container"``; a side that cannot be told says ``unavailable``, never a
    guess. None when neither fact is there (a record older than them).
    """
    vm, ct = facts.get("virt_vm"), facts.get("virt_container")
    if vm is None and ct is None:
        return None
    if vm in ("", "unavailable", None):
        said_vm = "VM: unavailable"
    elif vm == "hypervisor":
        said_vm = "a VM (kind unavailable: CPU flag hypervisor)"
    else:
        said_vm = "not a VM" if vm == "none" else f"a VM ({vm})"
    if ct in ("", "unavailable", None):
        said_ct = "container: unavailable"
    elif ct == "none":
        said_ct = "not in a container"
    else:
        files = [f for f in ("/.dockerenv", "/run/.containerenv")
                 if f in str(facts.get("virt_how", "")).partition("evidence present:")[2]]
        said_ct = f"container: {ct}" + (f" ({', '.join(files)} present)" if files else "")
    return f"{said_vm}, {said_ct}"


def parse_facts(text: str) -> dict[str, str]:
    """Parse ``name=value`` lines (facts_command's output); empty values become ``unavailable``."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.partition("=")
        if sep and name:
            out[name.strip()] = value.strip() or "unavailable"
    return out
