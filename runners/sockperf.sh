#!/bin/sh
# sockperf client (load generator, against a sockperf server in the measured environment):
# message latency (test=): ping-pong (every message answered: the latency distribution, avg, std-dev,
# percentiles up to 99.999) or under-load (a message stream at mps messages/s, one in
# sockperf's --reply-every, default 100, answered), or one-way message rate and bandwidth
# (throughput), over TCP (tcp=on) or UDP.
#     sh runners/sockperf.sh OUTDIR host=10.0.0.2 test=ping-pong time=10
#     sh runners/sockperf.sh OUTDIR host=10.0.0.2 test=under-load mps=10000 message_size=64
#     sh runners/sockperf.sh OUTDIR host=10.0.0.2 test=throughput tcp=off message_size=1472 mps=max
# message_size: -m, bytes per message ("default": none, sockperf's 14). mps: --mps, messages per
# second, or max ("default": none; sockperf's default is 10000 in under-load, max otherwise).
# Server side, started by the campaign (Benchmark `server:`), TCP:
#     server: "sockperf server -i {listen} -p {port:11111} --tcp"
#     ready: "sockperf ping-pong -i {host} -p {port:11111} --tcp -t 1 | grep -q 'Summary: Latency'"
#     ports: [11111]
# with params port: "{port:11111}", tcp: "on". The ready check is a short ping-pong, not a
# bare TCP connect: QEMU's user-mode port forward accepts a connection before the guest's
# server listens (sockperf then meets "A connection was forcibly closed"). A UDP server is the same without --tcp; it
# listens on no TCP port, so its `ready` has to be a UDP exchange, e.g.
#     ready: "sockperf ping-pong -i {host} -p {port:11111} -t 1 | grep -q 'Summary: Latency'"
# and a TCP-only port publish (Docker) or forward (QEMU) does not carry it. sockperf exits 0
# when it could not connect or got no reply ("sockperf: ERROR: Can`t connect socket", "No
# messages were received from the server"): the parser's RunFailed on the output marks such a
# trial as failed (overhead.runners.read_trial).
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare host=127.0.0.1 port=11111 test=ping-pong tcp=on time=10 message_size=default mps=default
rn_args "$@"
rn_require sockperf
rn_int port; rn_int time
rn_oneof test ping-pong under-load throughput
rn_oneof tcp on off
[ "$P_time" -gt 0 ] || rn_die "time must be at least 1 s"
case "$P_message_size" in
    default) rn_unused message_size ;;
    *) rn_int message_size ;;
esac
case "$P_mps" in
    default) rn_unused mps ;;
    max) ;;
    *) rn_int mps; [ "$P_mps" -gt 0 ] || rn_die "mps must be at least 1 (or max)" ;;
esac
set -- sockperf "$P_test" -i "$P_host" -p "$P_port" -t "$P_time"
[ "$P_tcp" = on ] && set -- "$@" --tcp
[ "$P_message_size" = default ] || set -- "$@" -m "$P_message_size"
[ "$P_mps" = default ] || set -- "$@" --mps "$P_mps"
rn_run sockperf sockperf sockperf "$(sockperf --version 2>&1 | head -n 1)" -- "$@"
