#!/bin/sh
# iperf3 client (load generator, against an iperf3 server in the measured environment): TCP or
# UDP goodput, retransmits, UDP jitter and loss, both hosts' CPU, as iperf3's -J JSON (the
# richest of its outputs: per-second intervals, sender and receiver summaries per stream and
# their sums, RTT, cpu_utilization_percent).
#     sh runners/iperf3.sh OUTDIR host=10.0.0.2 time=10 streams=4
#     sh runners/iperf3.sh OUTDIR host=10.0.0.2 udp=on bitrate=100M length=1400 reverse=on
# reverse=on: the server sends and this host receives (-R; the connections are still opened
# from this host, so a published or forwarded port works in both directions). streams: -P.
# bitrate: iperf3's -b (e.g. 100M, 1G; 0 = unlimited); "default" passes none (TCP unlimited,
# UDP 1 Mbit/s). length: -l, the read/write size (TCP) or the datagram payload (UDP); "default"
# passes none.
# Server side, started by the campaign (Benchmark `server:`, one test at a time):
#     server: "iperf3 -s -B {listen} -p {port:5201}"
#     ready: "iperf3 -c {host} -p {port:5201} -n 1K"
#     ports: [5201]
# with params port: "{port:5201}". The ready check is a tiny test, not a bare TCP connect:
# QEMU's user-mode port forward accepts a connection before the guest's server listens.
# iperf3's UDP tests send their datagrams to the same port number over UDP, which a TCP-only
# port publish (Docker) or forward (QEMU) does not carry.
# iperf3 3.12 exits 0 after a failure in -J mode (the error is the JSON's "error" key; 3.14
# and later exit 1): the exit status recorded is iperf3's own, and the parser's RunFailed on
# the output marks such a trial as failed (overhead.runners.read_trial).
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare host=127.0.0.1 port=5201 time=10 streams=1 reverse=off udp=off bitrate=default \
    length=default
rn_args "$@"
rn_require iperf3
rn_int port; rn_int time; rn_int streams
rn_oneof reverse on off
rn_oneof udp on off
[ "$P_time" -gt 0 ] || rn_die "time must be at least 1 s"
[ "$P_streams" -gt 0 ] || rn_die "streams must be at least 1"
case "$P_bitrate" in
    default) rn_unused bitrate ;;
    *[!0-9.KMGkmg]* | "" | [!0-9]*) rn_die "parameter bitrate='$P_bitrate' is not a rate (digits, then K, M or G; or default)" ;;
esac
case "$P_length" in
    default) rn_unused length ;;
    *[!0-9KMkm]* | "" | [!0-9]*) rn_die "parameter length='$P_length' is not a size (digits, then K or M; or default)" ;;
esac
set -- iperf3 -c "$P_host" -p "$P_port" -t "$P_time" -P "$P_streams" -J
[ "$P_reverse" = on ] && set -- "$@" -R
[ "$P_udp" = on ] && set -- "$@" -u
[ "$P_bitrate" = default ] || set -- "$@" -b "$P_bitrate"
[ "$P_length" = default ] || set -- "$@" -l "$P_length"
rn_run iperf3 iperf3 iperf3 "$(iperf3 --version 2>&1 | head -n 1)" -- "$@"
