#!/bin/sh
# make fleet-up N=4: N hosts on this machine, each a network namespace with its own address on
# a bridge, its own sshd and host key, and its own /var/tmp (where runners write).
#
#   host NN (01..N)   network namespace $PREFIX-NN, one interface eth0 = $NET.(10+NN)/24, a veth
#                     whose other end ($PREFIX-NNh) is a port of the bridge $PREFIX-br; no other
#                     route: it reaches the bridge's subnet and nothing else
#   the controller    this machine's own namespace, $NET.1/24 on the bridge
#   VM guests         $NET.200-254 are left for QEMU guests on the bridge (a vm environment with
#                     `bridge: $PREFIX-br` and `guest_address: $NET.200/24`: a tap device, made
#                     and removed by the campaign; fleet-down removes one left behind)
#   sshd              one per host, in its namespace, listening on $NET.(10+NN):22 only, root by
#                     key only, started in a private mount namespace whose /var/tmp is the host's
#                     own folder ($F/hosts/NN/var-tmp): hosts share this machine's files except
#                     /var/tmp, so their campaign folders (/var/tmp/overhead) are their own
#   inventory         $F/inventory.yml: hosts fleet-NN and environments native-NN, for a
#                     campaign's `inventory:`; client key $F/ssh/id_ed25519, host keys in
#                     $F/ssh/known_hosts
#
# Warm: a host whose namespace, link and sshd (same configuration) are there is left alone;
# host keys are kept across fleet-down/fleet-up. Links are shaped and cut by
# scripts/fleet-link.sh. Stopped by scripts/fleet-down.sh (everything this started).
#
#   OVERHEAD_FLEET         state folder (default data/hosts/fleet)
#   OVERHEAD_FLEET_PREFIX  names of namespaces and links (default ovf: at most 5 characters)
#   OVERHEAD_FLEET_NET     the /24 (default 10.231.0): addresses of this project's own hosts only
# POSIX sh; run as root.
set -eu
cd "$(dirname "$0")/.."
# shellcheck source=scripts/hostlib.sh
. scripts/hostlib.sh
say() { printf 'fleet-up: %s\n' "$*"; }
die() { printf 'fleet-up: %s\n' "$*" >&2; exit 1; }

N=${1:-${N:-4}}
F=${OVERHEAD_FLEET:-$(pwd)/data/hosts/fleet}
PREFIX=${OVERHEAD_FLEET_PREFIX:-ovf}
NET=${OVERHEAD_FLEET_NET:-10.231.0}
case $N in ''|*[!0-9]*) die "N=$N: a number of hosts, 1 to 99" ;; esac
if [ "$N" -lt 1 ] || [ "$N" -gt 99 ]; then die "N=$N: a number of hosts, 1 to 99"; fi
case $PREFIX in ''|*[!a-z0-9]*) die "OVERHEAD_FLEET_PREFIX=$PREFIX: lower-case letters and digits" ;; esac
[ ${#PREFIX} -le 5 ] || die "OVERHEAD_FLEET_PREFIX=$PREFIX: at most 5 characters (interface names are 15)"
case $NET in 10.*.*|192.168.*|172.*.*) ;; *) die "OVERHEAD_FLEET_NET=$NET: a private /24 (10.x.y, 172.x.y, 192.168.x)" ;; esac
[ "$(id -u)" = 0 ] || die "must run as root (it makes network namespaces and starts sshd)"
for tool in ip:ip unshare:unshare sshd:/usr/sbin/sshd ssh-keygen:ssh-keygen ssh:ssh iptables:iptables; do
  command -v "${tool#*:}" >/dev/null 2>&1 || die "${tool%%:*} not found: run make debian"
done

BR=$PREFIX-br
t_all=$(now)
mkdir -p "$F/ssh" "$F/hosts" /run/sshd
chmod 755 /run/sshd

# --- keys: the controller's client key, each host's host key (kept across restarts) -----------
key() { [ -s "$1" ] || ssh-keygen -q -t ed25519 -N '' -C "$2" -f "$1"; }
key "$F/ssh/id_ed25519" overhead-fleet-client
cp "$F/ssh/id_ed25519.pub" "$F/ssh/authorized_keys_root.new"
chmod 600 "$F/ssh/authorized_keys_root.new"
mv "$F/ssh/authorized_keys_root.new" "$F/ssh/authorized_keys_root"

# --- the bridge, and its address for the controller ---------------------------------------------
if ! ip link show "$BR" >/dev/null 2>&1; then
  ip link add "$BR" type bridge
  say "bridge $BR: made"
fi
ip addr replace "$NET.1/24" dev "$BR"
ip link set "$BR" up
# bridged frames go through iptables (br_netfilter), whose FORWARD policy Docker sets to DROP:
# host-to-host traffic on the bridge is let through, and only that
iptables -w 10 -C FORWARD -i "$BR" -o "$BR" -j ACCEPT 2>/dev/null || iptables -w 10 -I FORWARD -i "$BR" -o "$BR" -j ACCEPT

# --- the hosts ----------------------------------------------------------------------------------
started=0; kept=0
known=""
i=1
while [ "$i" -le "$N" ]; do
  nn=$(printf '%02d' "$i")
  ns=$PREFIX-$nn
  addr=$NET.$((10 + i))
  d=$F/hosts/$nn
  mkdir -p "$d/var-tmp"
  key "$d/ssh_host_ed25519_key" "overhead-fleet-$nn"
  known="$known$addr $(cut -d' ' -f1,2 "$d/ssh_host_ed25519_key.pub")
"
  # the namespace and its link
  if ! ip netns list | grep -q "^$ns\\b"; then
    ip netns add "$ns"
  fi
  if ! ip link show "$ns"h >/dev/null 2>&1; then
    ip link add "$ns"h type veth peer name "$ns"p
    ip link set "$ns"p netns "$ns"
    ip -n "$ns" link set "$ns"p name eth0
    ip link set "$ns"h master "$BR" up
  fi
  ip -n "$ns" addr replace "$addr/24" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
  # its sshd
  cat > "$d/sshd_config.new" <<EOF
# written by scripts/fleet-up.sh: fleet host $nn ($ns), root by key only, on the bridge only
Port 22
ListenAddress $addr
HostKey $d/ssh_host_ed25519_key
PidFile $d/sshd.pid
AuthorizedKeysFile $F/ssh/authorized_keys_%u
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxStartups 100:30:200
MaxSessions 100
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
  if [ -s "$d/sshd.pid" ] && running "$(cat "$d/sshd.pid")" \
      && [ "$(cat "/proc/$(cat "$d/sshd.pid")/comm" 2>/dev/null)" = sshd ] \
      && cmp -s "$d/sshd_config.new" "$d/sshd_config"; then
    rm "$d/sshd_config.new"
    kept=$((kept + 1))
  else
    if [ -s "$d/sshd.pid" ]; then stop "sshd $nn" "$d/sshd.pid" sshd 5 >/dev/null; fi
    mv "$d/sshd_config.new" "$d/sshd_config"
    /usr/sbin/sshd -t -f "$d/sshd_config" || die "host $nn: $d/sshd_config does not pass sshd -t"
    # own mount namespace: this host's /var/tmp; sshd daemonizes, its sessions inherit both
    # shellcheck disable=SC2016  # $1..$3 are the inner shell's arguments
    ip netns exec "$ns" unshare -m --propagation private \
      sh -c 'mount --bind "$1" /var/tmp && exec /usr/sbin/sshd -f "$2" -E "$3"' \
      sh "$d/var-tmp" "$d/sshd_config" "$d/sshd.log" 9>&-
    started=$((started + 1))
  fi
  i=$((i + 1))
done
printf '%s' "$known" > "$F/ssh/known_hosts.new"
mv "$F/ssh/known_hosts.new" "$F/ssh/known_hosts"
echo "$N" > "$F/size"

# --- the inventory ------------------------------------------------------------------------------
{
  echo "# written by scripts/fleet-up.sh: $N hosts in network namespaces on bridge $BR ($NET.0/24)."
  echo "# A campaign names it with \`inventory: ../hosts/fleet/inventory.yml\`."
  echo "hosts:"
  i=1
  while [ "$i" -le "$N" ]; do
    nn=$(printf '%02d' "$i")
    echo "  fleet-$nn: {address: $NET.$((10 + i)), port: 22, user: root, key_file: ssh/id_ed25519, known_hosts: ssh/known_hosts}"
    i=$((i + 1))
  done
  echo "environments:"
  i=1
  while [ "$i" -le "$N" ]; do
    nn=$(printf '%02d' "$i")
    echo "  native-$nn: {kind: native, host: fleet-$nn}"
    i=$((i + 1))
  done
} > "$F/inventory.yml.new"
mv "$F/inventory.yml.new" "$F/inventory.yml"

# --- every host answers, with its own key, on its own address -----------------------------------
i=1
pids=""
while [ "$i" -le "$N" ]; do
  nn=$(printf '%02d' "$i")
  addr=$NET.$((10 + i))
  (
    n=0
    until ssh -q -F /dev/null -i "$F/ssh/id_ed25519" -o UserKnownHostsFile="$F/ssh/known_hosts" \
        -o StrictHostKeyChecking=yes -o BatchMode=yes -o ConnectTimeout=5 "root@$addr" \
        "ip -4 -o addr show dev eth0 | grep -q ' $addr/'"; do
      n=$((n + 1))
      [ $n -lt 50 ] || { tail -n 5 "$F/hosts/$nn/sshd.log" >&2; die "host $nn: ssh root@$addr failed"; }
      sleep 0.1
    done
  ) &
  pids="$pids $!"
  i=$((i + 1))
done
failed=0
for p in $pids; do wait "$p" || failed=1; done
[ $failed = 0 ] || die "some hosts did not answer (above)"
say "$N hosts ready in $(since "$t_all") ($started sshd started, $kept left running): inventory $F/inventory.yml"
