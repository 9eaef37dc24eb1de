#!/bin/sh
# nuttcp 6 client (load generator, against `nuttcp -S` in the measured environment): bulk TCP
# goodput in one direction, the paper's Fig 2. direction=tx sends from this host to the server,
# rx receives from it. -fparse output, with per-second intervals when interval=1.
#     sh runners/nuttcp.sh OUTDIR host=10.0.0.2 direction=tx time=10
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare host=127.0.0.1 ctl_port=5000 data_port=5001 direction=tx time=10 streams=1 interval=0
rn_args "$@"
rn_require nuttcp
rn_oneof direction tx rx
rn_int ctl_port; rn_int data_port; rn_int time; rn_int streams; rn_int interval
[ "$P_time" -gt 0 ] || rn_die "time must be at least 1 s"
# nuttcp uses data ports data_port .. data_port+streams-1; the control port must lie outside them
if [ "$P_ctl_port" -ge "$P_data_port" ] && [ "$P_ctl_port" -lt $((P_data_port + P_streams)) ]; then
    rn_die "ctl_port $P_ctl_port overlaps the data ports $P_data_port..$((P_data_port + P_streams - 1))"
fi
set -- nuttcp -P "$P_ctl_port" -p "$P_data_port" -"$(echo "$P_direction" | cut -c1)" \
    -T "$P_time" -N "$P_streams"
[ "$P_interval" -gt 0 ] && set -- "$@" -i "$P_interval"
set -- "$@" -fparse "$P_host"
rn_run nuttcp nuttcp nuttcp "$(nuttcp -V 2>&1 | head -n 1)" -- "$@"
