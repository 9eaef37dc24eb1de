#!/bin/sh
# netperf 2.7 client (run on the load-generating host against a netserver inside the measured
# environment): TCP_RR/UDP_RR latency and transaction rate (the paper's Fig 3) or TCP_STREAM /
# TCP_MAERTS throughput, as omni key=value output with the latency percentiles.
#     sh runners/netperf.sh OUTDIR host=10.0.0.2 test=TCP_RR length=30
#     sh runners/netperf.sh OUTDIR host=10.0.0.2 test=TCP_STREAM size=65536
# request/response set the RR sizes (the paper: 100-byte request, 200-byte response; 0 = size);
# size sets the send size (STREAM). data_port pins the netserver's data port (0: netperf picks
# one), so that a port forward or Docker's NAT can publish it beside the control port.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare host=127.0.0.1 port=12865 test=TCP_RR length=10 size=1 request=0 response=0 \
    data_port=0 cpu=off
rn_args "$@"
rn_require netperf
rn_oneof test TCP_RR UDP_RR TCP_STREAM TCP_MAERTS UDP_STREAM
rn_int port; rn_int length; rn_int size; rn_int request; rn_int response; rn_int data_port
rn_oneof cpu on off
[ "$P_length" -gt 0 ] || rn_die "length must be at least 1 s (0 would mean a transaction count)"
fields=MIN_LATENCY,MEAN_LATENCY,P50_LATENCY,P90_LATENCY,P99_LATENCY,MAX_LATENCY,STDDEV_LATENCY
fields=$fields,TRANSACTION_RATE,THROUGHPUT,THROUGHPUT_UNITS,REQUEST_SIZE,RESPONSE_SIZE
fields=$fields,ELAPSED_TIME,PROTOCOL,DIRECTION
set -- netperf -H "$P_host" -p "$P_port" -l "$P_length" -t "$P_test"
[ "$P_cpu" = on ] && set -- "$@" -c -C
[ "$P_request" -gt 0 ] || P_request=$P_size
[ "$P_response" -gt 0 ] || P_response=$P_size
case "$P_test" in
    *_RR) set -- "$@" -- -r "$P_request,$P_response" -k "$fields"; rn_unused size ;;
    *) set -- "$@" -- -m "$P_size" -k "$fields"; rn_unused request response ;;
esac
[ "$P_data_port" -gt 0 ] && set -- "$@" -P ",$P_data_port"
rn_run netperf netperf netperf "$(netperf -V 2>&1 | head -n 1)" -- "$@"
