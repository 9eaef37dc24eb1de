#!/bin/sh
# scripts/fleet-link.sh NN WHAT [VALUE]: shape or cut the link of fleet host NN (scripts/fleet-up.sh).
#
#   cut             the bridge's port of the host down: nothing reaches it or leaves it
#   restore         the port up again
#   rate RATE       token bucket (tc tbf) at RATE (tc units: 1mbit, 500kbit) both ways
#   delay TIME      tc netem delay (both ways); refused when the kernel has no netem
#   loss PERCENT    drop PERCENT % of the host's packets both ways: tc netem loss, or, on a
#                   kernel without netem, iptables' statistic match in the chain <prefix>-loss
#   clear           no shaping, no loss rules, port up
#
# This machine's kernel has no sch_netem (and loads no modules): delay is refused here, loss
# is iptables' random drop, rate is tbf. Same variables as fleet-up.sh. POSIX sh; run as root.
set -eu
cd "$(dirname "$0")/.."
die() { printf 'fleet-link: %s\n' "$*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: fleet-link.sh NN cut|restore|rate RATE|delay TIME|loss PERCENT|clear"
PREFIX=${OVERHEAD_FLEET_PREFIX:-ovf}
NET=${OVERHEAD_FLEET_NET:-10.231.0}
nn=$(printf '%02d' "$1")
ns=$PREFIX-$nn
h=${ns}h
addr=$NET.$((10 + ${1#0}))
ip netns list | grep -q "^$ns\\b" || die "no fleet host $nn (namespace $ns): make fleet-up"
chain=$PREFIX-loss

netem() { tc qdisc replace dev "$h" root netem "$@" 2>/dev/null && ip netns exec "$ns" tc qdisc replace dev eth0 root netem "$@"; }
unshape() {
  tc qdisc del dev "$h" root 2>/dev/null || true
  ip netns exec "$ns" tc qdisc del dev eth0 root 2>/dev/null || true
}
unloss() {
  iptables -w 10 -L "$chain" >/dev/null 2>&1 || return 0
  for dir in -s -d; do
    while rule=$(iptables -w 10 -S "$chain" | grep -m 1 -- "$dir $addr/32"); do
      # shellcheck disable=SC2086  # the rule's words, as iptables -S printed them
      iptables -w 10 -D ${rule#-A }
    done
  done
}

case $2 in
  cut) ip link set "$h" down ;;
  restore) ip link set "$h" up ;;
  rate)
    [ $# -eq 3 ] || die "rate needs a rate (1mbit)"
    tc qdisc replace dev "$h" root tbf rate "$3" burst 32kbit latency 400ms
    ip netns exec "$ns" tc qdisc replace dev eth0 root tbf rate "$3" burst 32kbit latency 400ms ;;
  delay)
    [ $# -eq 3 ] || die "delay needs a time (50ms)"
    netem delay "$3" || die "this kernel has no tc netem (sch_netem): no delay can be added" ;;
  loss)
    [ $# -eq 3 ] || die "loss needs a percentage (10)"
    if ! netem loss "$3%"; then
      p=$(awk -v x="$3" 'BEGIN { printf "%.4f", x / 100 }')
      iptables -w 10 -L "$chain" >/dev/null 2>&1 || iptables -w 10 -N "$chain"
      for hook in INPUT OUTPUT FORWARD; do
        iptables -w 10 -C "$hook" -j "$chain" 2>/dev/null || iptables -w 10 -I "$hook" -j "$chain"
      done
      unloss
      iptables -w 10 -A "$chain" -s "$addr/32" -m statistic --mode random --probability "$p" -j DROP
      iptables -w 10 -A "$chain" -d "$addr/32" -m statistic --mode random --probability "$p" -j DROP
    fi ;;
  clear) unshape; unloss; ip link set "$h" up ;;
  *) die "$2: cut, restore, rate, delay, loss or clear" ;;
esac
