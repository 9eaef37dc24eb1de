"""overhead.environments: display labels of (environment, variant) pairs, order, colours."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from overhead import environments as envs
from overhead.rc25482 import ALIASES


@pytest.mark.parametrize(("environment", "variant", "expected"), [
    ("native", "default", "Native"), ("native", None, "Native"),
    ("docker", "default", "Docker"), ("docker", "net=host", "Docker net=host"),
    ("docker", "net=nat", "Docker NAT"), ("docker", "net=host,storage=volume", "Docker net=host volume"),
    ("docker", "net=nat,storage=volume", "Docker NAT volume"), ("docker", "net=nat,storage=aufs", "Docker NAT AUFS"),
    ("docker", "net=host,storage=aufs", "Docker net=host AUFS"),
    ("docker", "net=nat,storage=overlay,runtime=crun", "Docker NAT overlay crun"),
    ("kvm", "default", "KVM"), ("kvm", "untuned", "KVM-untuned"), ("kvm", "tuned", "KVM-tuned"),
    ("vm", "accel=tcg", "QEMU TCG"), ("kvm", "tuned,accel=tcg", "QEMU TCG tuned"), ("vm", "tuned", "VM-tuned"),
    ("podman", "mode=rootless,net=pasta,storage=volume,runtime=crun", "Podman rootless pasta volume crun"),
    ("podman", "mode=rootful,net=bridge,storage=overlay,driver=vfs,runtime=runc",
     "Podman rootful bridge overlay vfs runc"),
    ("lxc", "net=veth-bridge,storage=overlay,privileged=true", "LXC veth overlay privileged"),
])
def test_labels_are_built_from_the_parts(environment, variant, expected):
    assert envs.label(environment, variant) == expected


def test_a_variant_in_a_study_s_own_words():
    assert envs.label("kvm", "qcow2,pinned") == "KVM qcow2,pinned"  # kept as written
    assert envs.label("kvm", "qcow2,pinned", ALIASES) == "KVM"  # the paper's name


def test_tcg_is_never_labelled_kvm():
    for variant in ("accel=tcg", "untuned,accel=tcg", "tuned,accel=tcg"):
        assert "KVM" not in envs.label("kvm", variant)
    assert envs.colour("QEMU TCG") != envs.colour("KVM")


def test_labels_of_a_frame_keep_missing_environments_missing():
    df = pd.DataFrame({"environment": ["docker", None, "kvm"], "variant": ["net=nat", "x", "qcow2,pinned"]})
    out = envs.labels(df, ALIASES)
    assert out.tolist()[0] == "Docker NAT" and pd.isna(out[1]) and out[2] == "KVM"


def test_order_colour_and_ordered_categoricals():
    names = ["KVM-tuned", "zzz", "Docker NAT", "Native", "QEMU TCG"]
    assert envs.order(names) == ["Native", "Docker NAT", "KVM-tuned", "QEMU TCG", "zzz"]
    assert envs.colour("Docker net=host volume") == envs.colour("Docker net=host")  # one family
    assert envs.colour("unknown") == envs.OKABE_ITO["grey"]
    s = envs.ordered(pd.Series(["KVM", "Native", "Docker"]))
    assert s.sort_values().tolist() == ["Native", "Docker", "KVM"] and s.cat.ordered


def test_nat_counts_are_read_per_published_address_from_dockers_rules():
    """Genuine `iptables -t nat -L DOCKER -n -v -x` of a NAT container reached from another host."""
    from overhead.environments.docker import nat_counts_command, parse_nat_counts

    text = (Path(__file__).resolve().parents[1] / "fixtures" / "provenance"
            / "nat_counts_two-hosts.txt").read_text()
    # the bridge address: 2 + 3 TCP connections to netperf's two ports; the loopback: none
    assert parse_nat_counts(text) == {"10.231.0.1": 5, "127.0.0.3": 0}
    # another container's address: no rule is its own
    assert parse_nat_counts(text.replace("172.17.0.2\n--", "172.17.0.9\n--", 1)) == {}
    assert parse_nat_counts("Error: No such object: x\n") is None
    assert "iptables -w 5 -t nat -L DOCKER -n -v -x" in nat_counts_command("overhead-c-docker-nat")
