#!/bin/sh
# make fleet-down: stop everything scripts/fleet-up.sh (and scripts/fleet-link.sh) started:
# each host's sshd and every process left in its namespace, loop devices mounted as a host's
# /var/tmp, link shaping and cuts, the namespaces, their links, the bridge and its iptables rule.
# Host keys and the client key stay in the state folder (a later fleet-up reuses them).
# Same variables as fleet-up.sh. POSIX sh; run as root.
set -eu
cd "$(dirname "$0")/.."
# shellcheck source=scripts/hostlib.sh
. scripts/hostlib.sh
say() { printf 'fleet-down: %s\n' "$*"; }

F=${OVERHEAD_FLEET:-$(pwd)/data/hosts/fleet}
PREFIX=${OVERHEAD_FLEET_PREFIX:-ovf}
BR=$PREFIX-br
t_all=$(now)
n_ns=0
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$PREFIX-[0-9][0-9]\$" || true); do
  nn=${ns#"$PREFIX"-}
  d=$F/hosts/$nn
  if [ -s "$d/sshd.pid" ]; then stop "sshd $nn" "$d/sshd.pid" sshd 5 >/dev/null; fi
  # anything else still in the namespace (sessions, runners, a stopped sshd): TERM, then KILL
  pids=$(ip netns pids "$ns" 2>/dev/null || true)
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086  # one pid per word
    kill -CONT $pids 2>/dev/null || true
    # shellcheck disable=SC2086
    kill $pids 2>/dev/null || true
    k=0
    while [ -n "$(ip netns pids "$ns" 2>/dev/null)" ] && [ $k -lt 30 ]; do sleep 0.1; k=$((k + 1)); done
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
  fi
  ip netns del "$ns"
  n_ns=$((n_ns + 1))
done
# the hosts' links went with their namespaces; any left (a namespace deleted by hand) go now
for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep "^$PREFIX-[0-9][0-9]h\$" || true); do
  ip link del "$link" 2>/dev/null || true
done
# a VM guest's tap on the bridge (a vm environment with `bridge:`): its campaign removes it when
# it stops the VM; one a killed campaign left goes here, before the bridge
for link in $(ip -o link show master "$BR" 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^ovtap' || true); do
  ip link del "$link" 2>/dev/null || true
done
if ip link show "$BR" >/dev/null 2>&1; then ip link del "$BR"; fi
while iptables -w 10 -C FORWARD -i "$BR" -o "$BR" -j ACCEPT 2>/dev/null; do
  iptables -w 10 -D FORWARD -i "$BR" -o "$BR" -j ACCEPT
done
# loss rules scripts/fleet-link.sh added (one chain per fleet)
if iptables -w 10 -L "$PREFIX-loss" >/dev/null 2>&1; then
  while iptables -w 10 -C FORWARD -j "$PREFIX-loss" 2>/dev/null; do iptables -w 10 -D FORWARD -j "$PREFIX-loss"; done
  while iptables -w 10 -C INPUT -j "$PREFIX-loss" 2>/dev/null; do iptables -w 10 -D INPUT -j "$PREFIX-loss"; done
  while iptables -w 10 -C OUTPUT -j "$PREFIX-loss" 2>/dev/null; do iptables -w 10 -D OUTPUT -j "$PREFIX-loss"; done
  iptables -w 10 -F "$PREFIX-loss"
  iptables -w 10 -X "$PREFIX-loss"
fi
# loop devices backing a host's small file system (the disk-full fault): its mount went with the
# host's mount namespace; the device is detached here
n_loop=0
if [ -d "$F/hosts" ]; then
  for img in "$F"/hosts/*/disk.img; do
    [ -e "$img" ] || continue
    for dev in $(losetup -j "$img" 2>/dev/null | cut -d: -f1); do
      losetup -d "$dev" && n_loop=$((n_loop + 1))
    done
    rm -f "$img"
  done
  rm -f "$F"/hosts/*/sshd.pid "$F/size"
fi
say "stopped $n_ns hosts, detached $n_loop loop devices in $(since "$t_all") (keys kept in $F)"
