"""Provenance that tells the truth (issue 24, point 4).

The host's virtualization as two answers (``--vm`` and ``--container``), a VM's guest and host
kernels, a load generator's host facts named as the client's, Docker's userland proxy, iptables
backend and NAT path, hosts-up's check of a running dockerd, and the report's "what was
measured where". Every parser is tested on outputs captured on this machine
(``tests/fixtures/provenance``, README.md there says how); nothing here needs the local hosts.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from overhead import runners
from overhead.campaign import ingest, results
from overhead.environments import docker, dockerfacts, posix
from overhead.paths import ROOT

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "provenance"
TRIALS = Path(__file__).resolve().parents[1] / "fixtures" / "campaign-trials"
HOSTLIB = ROOT / "scripts" / "hostlib.sh"


def _said(name: str) -> str:
    """The first line of a captured systemd-detect-virt answer."""
    return (FIX / name).read_text().splitlines()[0]


def _docker(name: str) -> dict[str, str]:
    return docker.parse_facts((FIX / name).read_text())


# --- the host's virtualization, asked twice --------------------------------------------------

def test_facts_record_both_answers_of_systemd_detect_virt():
    facts = posix.parse_facts((FIX / "posix_facts.txt").read_text())
    # plain systemd-detect-virt answered only the innermost layer: "docker", on a VM
    assert _said("systemd-detect-virt.txt") == "docker"
    assert facts["virt_vm"] == _said("systemd-detect-virt_vm.txt") == "kvm"
    assert facts["virt_container"] == _said("systemd-detect-virt_container.txt") == "docker"
    assert "virtualization" not in facts
    assert "evidence present: /.dockerenv cpu-flag:hypervisor" in facts["virt_how"]
    assert posix.host_phrase(facts) == "a VM (kvm), container: docker (/.dockerenv present)"


def test_without_systemd_detect_virt_the_evidence_speaks_and_the_kind_is_not_guessed():
    facts = posix.parse_facts((FIX / "posix_facts_without_systemd-detect-virt.txt").read_text())
    assert facts["virt_vm"] == "hypervisor"  # the CPU flag: a VM, of a kind not told
    assert facts["virt_container"] == "docker"  # /.dockerenv
    assert facts["virt_how"].startswith("vm: cpu flag hypervisor (kind unavailable), "
                                        "container: /.dockerenv")
    assert posix.host_phrase(facts) == ("a VM (kind unavailable: CPU flag hypervisor), "
                                        "container: docker (/.dockerenv present)")


def test_host_phrase_says_unavailable_and_none_as_they_are():
    assert posix.host_phrase({"virt_vm": "none", "virt_container": "none"}) == \
        "not a VM, not in a container"
    assert posix.host_phrase({"virt_vm": "unavailable", "virt_container": "none"}) == \
        "VM: unavailable, not in a container"
    assert posix.host_phrase({"virtualization": "docker"}) is None  # an older record


@pytest.mark.skipif(shutil.which("systemd-detect-virt") is None, reason="no systemd-detect-virt")
def test_facts_command_agrees_with_systemd_detect_virt_here():
    out = subprocess.run(["sh", "-c", posix.facts_command()], capture_output=True, text=True,
                         check=True).stdout
    facts = posix.parse_facts(out)
    for arg, key in (("--vm", "virt_vm"), ("--container", "virt_container")):
        said = subprocess.run(["systemd-detect-virt", arg], capture_output=True, text=True).stdout
        assert facts[key] == said.strip(), key


@pytest.mark.skipif(shutil.which("hyperfine") is None, reason="hyperfine not installed")
def test_a_runner_s_meta_answers_as_the_environment_facts_do(tmp_path):
    proc = subprocess.run(runners.command("hyperfine", tmp_path / "t", runs=2, command="true"),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    meta = runners.read_meta(tmp_path / "t" / "meta")
    facts = posix.parse_facts(subprocess.run(["sh", "-c", posix.facts_command()],
                                             capture_output=True, text=True).stdout)
    assert (meta["virt_vm"], meta["virt_container"]) == (facts["virt_vm"], facts["virt_container"])
    assert "virtualization" not in meta
    notes = runners.read_trial(tmp_path / "t").provenance["notes"]
    assert f"virt_vm={facts['virt_vm']}" in notes and f"virt_container={facts['virt_container']}" in notes


# --- a load generator's trial: its host facts are the client's -------------------------------

def test_a_client_trial_s_host_facts_are_named_the_client_s_and_the_environment_s_fill_columns():
    trial = runners.read_trial(TRIALS / "nuttcp")  # runner ran natively on the client host
    client_kernel = trial.meta["kernel"]
    host = posix.parse_facts((FIX / "posix_facts.txt").read_text())
    guest_kernel = "Linux 6.1.0-guest (the guest's)"
    facts = {"vm": {"environment": "vm", "kernel": guest_kernel, "guest_kernel": guest_kernel,
                    **posix.host_facts(host), "virt_vm": "qemu", "virt_container": "none"}}
    record = {"env_name": "vm", "run_id": "c/vm/nuttcp/t1", "campaign": "c",
              "environment": "vm", "variant": "untuned", "host": "local"}
    row = ingest._provenance_row(trial, record, facts, TRIALS / "nuttcp" / "output", "local")
    assert row["kernel"] == guest_kernel  # was the client's (the host's) kernel
    notes = row["notes"].split("; ")
    assert f"client_kernel={client_kernel}" in notes and "client_host=local" in notes
    assert f"host_kernel={host['kernel']}" in notes and f"guest_kernel={guest_kernel}" in notes
    assert "client_virtualization=docker" in notes  # this old meta's field, kept as the client's
    assert "virtualization=docker" not in notes
    # a trial whose runner ran in the environment keeps its own meta as before
    own = ingest._provenance_row(trial, record, facts, TRIALS / "nuttcp" / "output")
    assert own["kernel"] == client_kernel and "client_host=local" not in own["notes"]


# --- Docker: userland proxy, iptables backend, NAT path --------------------------------------

def test_iptables_backend_from_iptables_v():
    assert dockerfacts.iptables_backend((FIX / "iptables-V.txt").read_text()) == "nf_tables"
    assert dockerfacts.iptables_backend((FIX / "iptables-legacy-V.txt").read_text()) == "legacy"
    assert dockerfacts.iptables_backend("sh: 1: iptables: not found") == "unavailable"


def test_the_facts_sections_are_the_outputs_captured_on_their_own():
    for tag in ("daemon-json-off", "docker-default"):
        _, sections = dockerfacts.parse_sections((FIX / f"docker_facts_{tag}.txt").read_text())
        assert sections["iptables -t nat -S"] == (FIX / f"iptables_nat_{tag}.txt").read_text()
        pid = (FIX / f"dockerd_cmdline_{tag}.raw").read_bytes().split(b"\0")
        assert any(text.split("\n")[:-2] == [a.decode() for a in pid[:-1]]
                   for key, text in sections.items() if key.startswith("dockerd "))


def test_hosts_up_dockerd_nat_goes_through_output_dnat_and_masquerade():
    f = _docker("docker_facts_hosts-up.txt")
    assert f["docker_iptables_backend"] == "nf_tables"
    assert f["docker_userland_proxy"] == "off"
    assert f["docker_userland_proxy_how"] == "dockerd pid 16996 flag --userland-proxy=false"
    assert f["docker_proxy_processes"] == "none"
    assert f["docker_nat_local"] == (
        "DNAT to 172.17.0.2 in the nat OUTPUT chain (via DOCKER) plus MASQUERADE in "
        "POSTROUTING (-A POSTROUTING -o docker0 -m addrtype --src-type LOCAL -j MASQUERADE)")
    assert f["docker_nat_remote"] == "not reachable (published on a loopback address)"
    assert f["docker_nat_jumps"] == ("-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER | "
                                     "-A OUTPUT -m addrtype --dst-type LOCAL -j DOCKER")
    assert f["docker_nat_dnat"].count("-j DNAT") == 4  # 2 ports x tcp, udp
    assert "iptables-legacy tables present" in f["docker_nat_warning"]
    assert all(";" not in v for v in f.values())


def test_userland_proxy_off_from_daemon_json_is_told_by_the_dockerd_the_cli_talks_to():
    text = (FIX / "docker_facts_daemon-json-off.txt").read_text()
    f = docker.parse_facts(text)
    _, sections = dockerfacts.parse_sections(text)
    assert sum(k.startswith("dockerd ") for k in sections) == 2  # hosts-up's and the capture's
    assert f["docker_userland_proxy"] == "off"
    assert f["docker_userland_proxy_how"].endswith("daemon.json userland-proxy: false")
    assert f["docker_nat_local"].startswith("DNAT to 172.17.0.2 in the nat OUTPUT chain")
    # the same evidence, the CLI talking to the default socket: the other dockerd answers
    default = text.replace(f"docker_host={f['docker_host']}",
                           "docker_host=unix:///var/run/docker.sock")
    assert docker.parse_facts(default)["docker_userland_proxy_how"] == \
        "dockerd pid 16996 flag --userland-proxy=false"


def test_docker_s_default_serves_a_loopback_port_through_docker_proxy():
    f = _docker("docker_facts_docker-default.txt")
    assert f["docker_userland_proxy"] == "on"
    assert "Docker's default (no flag, no daemon.json)" in f["docker_userland_proxy_how"]
    assert f["docker_nat_local"] == ("docker-proxy in user space, no DNAT rule reached from "
                                     "the nat OUTPUT chain")
    assert f["docker_proxy_processes"].count("-host-ip 127.0.0.2 -host-port 12865") == 2
    assert f["docker_nat_masquerade"].count("--src-type LOCAL") == 0


def test_a_port_on_every_address_is_dnated_in_prerouting_for_a_remote_client():
    off = _docker("docker_facts_daemon-json-off_all-addresses.txt")
    assert off["docker_nat_remote"] == ("DNAT to 172.17.0.3 in the nat PREROUTING chain (via "
                                        "DOCKER), no MASQUERADE (the client's address kept)")
    on = _docker("docker_facts_docker-default_all-addresses.txt")
    assert on["docker_published"].endswith("[::]:12866/tcp -> container port 12866")
    assert on["docker_nat_local"] == ("docker-proxy in user space, no DNAT rule reached from "
                                      "the nat OUTPUT chain (a client on 127.0.0.1)")
    assert "[::]:12866/tcp: docker-proxy in user space" in on["docker_nat_remote"]


def test_rules_that_cannot_be_read_are_unavailable_with_the_reason():
    text = (FIX / "docker_facts_hosts-up.txt").read_text()
    head, _, rest = text.partition("@@ iptables -t nat -S\n")
    denied = (FIX / "iptables_nat_as_nobody.txt").read_text()
    f = docker.parse_facts(head + "@@ iptables -t nat -S\n" + denied
                           + "@@ dockerd" + rest.split("@@ dockerd", 1)[1])
    for key in ("docker_nat_dnat", "docker_nat_local", "docker_nat_remote"):
        assert f[key].startswith("unavailable (iptables -t nat -S: iptables v1.8.9 (nf_tables): "
                                 "Could not fetch rule set generation id: Permission denied")
    assert f["docker_userland_proxy"] == "off"  # told by the command line all the same


def test_without_a_visible_dockerd_the_userland_proxy_is_unavailable():
    text = (FIX / "docker_facts_hosts-up.txt").read_text().split("@@ dockerd")[0]
    f = docker.parse_facts(text)
    assert f["docker_userland_proxy"] == "unavailable"
    assert "no dockerd process seen" in f["docker_userland_proxy_how"]


# --- hosts-up: a running dockerd with other settings is refused in one line -----------------

def _differs(cmdline: str, daemon_json: str, mountinfo: str, runtimes: str) -> str:
    proc = subprocess.run(["sh", "-c", f". {HOSTLIB}; dockerd_differs \"$@\"", "sh",
                           str(FIX / cmdline), str(FIX / daemon_json), str(FIX / mountinfo),
                           (FIX / runtimes).read_text()], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == ""
    return proc.stdout


def test_hosts_up_s_own_dockerd_has_the_settings_it_wants():
    assert _differs("dockerd_cmdline_hosts-up.raw", "absent.json", "dockerd_mountinfo_hosts-up.txt",
                    "docker_runtimes_hosts-up.json") == ""
    # the settings from a daemon.json are as good as the flag
    assert _differs("dockerd_cmdline_daemon-json-off.raw", "daemon.json",
                    "dockerd_mountinfo_hosts-up.txt", "docker_runtimes_daemon-json-off.json") == ""


@pytest.mark.parametrize(("cmdline", "daemon_json", "mountinfo", "runtimes", "said"), [
    ("dockerd_cmdline_docker-default.raw", "absent.json", "dockerd_mountinfo_hosts-up.txt",
     "docker_runtimes_docker-default.json",
     f"userland-proxy is on (Docker's default: no --userland-proxy flag, none in {FIX}/absent.json);"
     " hosts-up runs it with --userland-proxy=false"),
    ("dockerd_cmdline_daemon-json-off.raw", "daemon.json", "dockerd_mountinfo_hosts-up.txt",
     "docker_runtimes_docker-default.json",
     "it has no crun runtime; hosts-up runs it with --add-runtime crun=/usr/bin/crun"),
    ("dockerd_cmdline_hosts-up.raw", "absent.json", "mountinfo_host.txt",
     "docker_runtimes_hosts-up.json",
     "its mount namespace has the cgroup2 mount /sys/fs/cgroup/unified (crun cannot create "
     "containers beside it); hosts-up runs it in a private mount namespace without it"),
])
def test_a_dockerd_with_other_settings_is_named_in_one_line(cmdline, daemon_json, mountinfo,
                                                             runtimes, said):
    assert _differs(cmdline, daemon_json, mountinfo, runtimes) == said + "\n"


def test_dockerd_config_is_the_file_its_command_line_names():
    def config(cmdline: str) -> str:
        return subprocess.run(["sh", "-c", f". {HOSTLIB}; dockerd_config \"$1\"", "sh",
                               str(FIX / cmdline)], capture_output=True, text=True).stdout.strip()

    assert config("dockerd_cmdline_hosts-up.raw") == "/etc/docker/daemon.json"
    assert config("dockerd_cmdline_daemon-json-off.raw").endswith("/daemon-json-off/daemon.json")


# --- the report's "what was measured where" --------------------------------------------------

def _results(tmp_path: Path) -> results.Results:
    """A campaign of a native and a Docker NAT environment, its provenance made by ingest."""
    host = posix.parse_facts((FIX / "posix_facts.txt").read_text())
    facts = {"native": {"environment": "native", **host},
             "nat": {"environment": "nat", **host, **posix.host_facts(host),
                     **_docker("docker_facts_hosts-up.txt")}}
    trial = runners.read_trial(TRIALS / "nuttcp")
    prov, trials = [], []
    for env, environment, variant in (("native", "native", None),
                                      ("nat", "docker", "net=nat,storage=volume,runtime=runc")):
        record = {"env_name": env, "run_id": f"c/{env}/nuttcp/t1", "campaign": "c",
                  "environment": environment, "variant": variant, "host": "local"}
        prov.append(ingest._provenance_row(trial, record, facts, TRIALS / "nuttcp" / "output",
                                           "local"))
        trials.append({**record, "status": "done"})
    return results.Results("c", tmp_path, tmp_path, pd.DataFrame(), pd.DataFrame(trials),
                           pd.DataFrame(prov))


def test_where_says_native_on_a_vm_host_the_nat_path_and_the_shared_client(tmp_path):
    w = results.where(_results(tmp_path)).set_index("env_name")
    assert w.loc["native", "virtualization"] == \
        "native, host is a VM (kvm), container: docker (/.dockerenv present)"
    assert w.loc["nat", "virtualization"] == \
        "in a Docker container, host is a VM (kvm), container: docker (/.dockerenv present)"
    assert (w["client"] == "same host as the server").all()
    assert w.loc["nat", "nat_path"] == (
        "DNAT to 172.17.0.2 in the nat OUTPUT chain (via DOCKER) plus MASQUERADE in "
        "POSTROUTING (-A POSTROUTING -o docker0 -m addrtype --src-type LOCAL -j MASQUERADE), "
        "userland proxy off")
    assert pd.isna(w.loc["native", "nat_path"])
    said = results.where_notes(w.reset_index())
    assert said[0].startswith("Docker NAT volume: DNAT to 172.17.0.2 in the nat OUTPUT chain")
    assert said[0].endswith("userland proxy off; the paper's client was on another machine (its "
                            "packets came in through PREROUTING, not masqueraded).")
    assert said[1].startswith("The load generators ran on the same host as the servers they "
                              "measured (Native, Docker NAT volume)")
    # the network figures say it beside them
    from overhead.rc25482 import live

    r = _results(tmp_path)
    rows = pd.DataFrame({c: pd.Series(dtype="object") for c in (
        "benchmark", "metric", "value", "p_kernel", "p_scope", "p_test", "p_direction")})
    notes = live.caveats(live.Live(r.name, r.tidy, r.out, rows, r.trials, r.provenance))
    assert "Docker NAT volume: DNAT to 172.17.0.2 in the nat OUTPUT chain" in notes["fig03"]


@pytest.mark.parametrize(("environment", "own"), [
    ("docker", "in a Docker container"), ("podman", "in a Podman container"),
    ("lxc", "in an LXC container")])
def test_a_containers_host_is_its_host_facts_not_what_the_container_sees(environment, own):
    """Inside a Podman container systemd-detect-virt answers podman (its /run/.containerenv):
    that is the container, not its host, which the host_virt_* facts describe."""
    facts = {"virt_vm": "kvm", "virt_container": environment, "virt_how": "",
             "host_virt_vm": "kvm", "host_virt_container": "none", "host_virt_how": ""}
    said = results._virtualization(environment, facts.get)
    assert said == f"{own}, host is a VM (kvm), not in a container"
    native = results._virtualization("native", facts.get)
    assert native.startswith("native, host is a VM (kvm), container: ")


def test_where_shown_fits_a_page_a_column_per_environment_shared_facts_said_once(tmp_path):
    w = results.where(_results(tmp_path))
    shown, shared = results.where_shown(w)
    # the environments are the columns, by label; a row per fact that differs between them
    assert list(shown.columns) == ["Native", "Docker NAT volume"]
    # what ran the runs: the environment's own part per column, the host they share said once
    assert shown.loc["ran"].tolist() == ["native", "in a Docker container"]
    assert "Every environment's host is a VM (kvm), container: docker (/.dockerenv present)." in shared
    assert shown.loc["variant", "Native"] == "-"  # native has no variant: said, not left empty
    assert shown.loc["variant", "Docker NAT volume"] == "net=nat, storage=volume, runtime=runc"
    assert shown.loc["environment"].tolist() == ["native", "docker"]
    # the host is the same for both: said once, not repeated in every column
    assert "host" not in shown.index and "Every environment ran on host local." in shared
    # the NAT path and the load generators' host are left to where_notes, which says them in full
    assert "Docker NAT path" not in shown.index and "load generators" not in shown.index
    assert not any("load generators" in s for s in shared)
    # a fact neither environment recorded is left out (the CSV keeps it)
    assert w["vm_scratch_disk"].isna().all() and "VM scratch disk" not in shown.index
    assert len(shown.columns) < len(w.columns) / 4
    # a campaign without any variant (the start-up study): that column is all NaN, no strings
    bare, _ = results.where_shown(w.assign(variant=float("nan"), virtualization=float("nan")))
    assert "variant" not in bare.index and "ran" not in bare.index
    assert bare.loc["environment"].tolist() == ["native", "docker"]


def test_where_section_splits_many_environments_into_tables_a_page_wide(tmp_path):
    """Eight environments (containers-2026) side by side are wider than a page: at most four
    a table, each fact a row of each table that has it."""
    from overhead.pages import Page

    w = results.where(_results(tmp_path))
    many = pd.concat([w.assign(label=w["label"] + f" {i}", env_name=w["env_name"] + str(i))
                      for i in range(3)], ignore_index=True)
    assert len(many) == 6
    page = Page("where")
    results.where_section(page, many)
    html_ = "".join(page.parts)
    assert html_.count("<table") == 2
    assert "environments 1-4 of 6" in html_ and "environments 5-6 of 6" in html_
    # every label in exactly one table; the shared facts still said once, after the tables
    for label in many["label"]:
        assert html_.count(f">{label}<") == 1, label
    assert html_.count("Every environment ran on host local.") == 1
    # two environments fit one table, as before
    page = Page("where")
    results.where_section(page, w)
    assert "".join(page.parts).count("<table") == 1


def test_a_long_fact_without_spaces_can_wrap_in_its_cell():
    mount = "10.0.2.2:/overhead/vm rw,relatime,vers=4.0,rsize=1048576,wsize=1048576"
    said = results._breakable(mount)
    assert said.replace("\u200b", "") == mount  # the text is the same, read or copied
    # the long word (the options) may wrap after each comma; the short path stays whole
    assert said == "10.0.2.2:/overhead/vm " + mount.split(" ")[1].replace(",", ",\u200b")
    assert results._breakable("net=host, runtime=runc") == "net=host, runtime=runc"  # short words
