#!/bin/sh
# nuttcp 6 client (load generator, against `nuttcp -S` in the measured environment): bulk TCP
# goodput in one direction, the paper's Fig 2. direction=tx sends from this host to the server,
# rx receives from it. -fparse output, with per-second intervals when interval=1.
#     sh runners/nuttcp.sh OUTDIR host=10.0.0.2 direction=tx time=10 host_cpu=auto
# host_cpu= measures the whole host's CPU during the transfer (Fig 2, "measured using perf stat -a"):
# perf = `perf stat -a -e cycles` around nuttcp (file `perf`); mpstat = `mpstat 1` beside it
# (file `mpstat`, for hosts without hardware counters, such as most VMs); auto = perf where it
# counts cycles, else mpstat; off = neither. The file is named in meta as a sidecar (its parser),
# so its rows join the trial's.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare host=127.0.0.1 ctl_port=5000 data_port=5001 direction=tx time=10 streams=1 interval=0 \
    host_cpu=off
rn_args "$@"
rn_require nuttcp
rn_oneof direction tx rx
rn_oneof host_cpu off perf mpstat auto
rn_int ctl_port; rn_int data_port; rn_int time; rn_int streams; rn_int interval
[ "$P_time" -gt 0 ] || rn_die "time must be at least 1 s"
# nuttcp uses data ports data_port .. data_port+streams-1; the control port must lie outside them
if [ "$P_ctl_port" -ge "$P_data_port" ] && [ "$P_ctl_port" -lt $((P_data_port + P_streams)) ]; then
    rn_die "ctl_port $P_ctl_port overlaps the data ports $P_data_port..$((P_data_port + P_streams - 1))"
fi
if [ "$P_host_cpu" = auto ]; then
    # perf prints "<not supported>" for cycles where the CPU's counters are not exposed
    if command -v perf >/dev/null 2>&1 \
        && perf stat -a -x, -e cycles -- true 2>&1 | grep -q '^[0-9][0-9]*,.*cycles'; then
        P_host_cpu=perf
    else
        P_host_cpu=mpstat
    fi
fi
[ "$P_host_cpu" = perf ] && rn_require perf
[ "$P_host_cpu" = mpstat ] && rn_require mpstat
set -- nuttcp -P "$P_ctl_port" -p "$P_data_port" -"$(echo "$P_direction" | cut -c1)" \
    -T "$P_time" -N "$P_streams"
# rx: -F flips who opens the data connection, so this host (the receiver) connects to the
# server's data port as in tx, through a published (Docker NAT) or forwarded (QEMU) port; without
# it the server would connect back to a data port this host listens on, which a VM's port
# forward on another loopback address already holds (EADDRINUSE on the wildcard bind)
[ "$P_direction" = rx ] && set -- "$@" -F
[ "$P_interval" -gt 0 ] && set -- "$@" -i "$P_interval"
set -- "$@" -fparse "$P_host"
[ "$P_host_cpu" = perf ] && set -- perf stat -a -x, -e cycles,instructions -o "$RN_TMP/perf" -- "$@"
rn_begin nuttcp nuttcp nuttcp "$(nuttcp -V 2>&1 | head -n 1)" -- "$@"
case "$P_host_cpu" in
    perf) rn_meta sidecar "perf:perf_stat" ;;
    mpstat)
        rn_meta sidecar "mpstat:mpstat"
        LC_ALL=C S_TIME_FORMAT=ISO mpstat 1 "$P_time" > "$RN_TMP/mpstat" 2>> "$RN_TMP/stderr" &
        sampler=$!
        ;;
esac
rn_exec "$@"
[ "$P_host_cpu" = mpstat ] && { wait "$sampler" || true; }
rn_finish "$RN_STATUS"
