#!/bin/sh
# wrk HTTP client: GETs of one URL over `connections` keep-alive connections shared by
# `threads` threads, for `duration` seconds, against a web server in the measured environment
# (server-nginx.sh serving /file.bin): requests/s, transfer/s, the latency mean, deviation and
# maximum, per-thread request rates, socket errors and non-2xx answers, and with latency=on
# the 50/75/90/99% latency distribution, in wrk's text report.
#     sh runners/wrk.sh OUTDIR host=10.0.0.2 port=8080 path=/file.bin threads=2 connections=100 duration=30
#     sh runners/wrk.sh OUTDIR url=http://127.0.0.1:18080/file.bin duration=5 latency=on
# The URL is url= when given (port and path are then not used), else http://host:port/path.
# The campaign engine passes the server's address as host= (and does not expand parameters'
# {host}): a "{host}" in url= is replaced by host. The run is bounded: wrk stops after duration
# seconds whatever the server does; timeout (wrk --timeout) is how late a response may come
# before wrk counts it as a timeout error. wrk writes its report to stdout (output) and its
# errors ("unable to connect to HOST:PORT Connection refused", exit status 1) to stderr.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare url= host=127.0.0.1 port=8080 path=/file.bin threads=2 connections=10 duration=10 \
    latency=on timeout=2
rn_args "$@"
rn_require wrk
rn_int port; rn_int threads; rn_int connections; rn_int duration; rn_int timeout
rn_oneof latency off on
[ "$P_threads" -ge 1 ] || rn_die "threads must be at least 1"
[ "$P_connections" -ge "$P_threads" ] || \
    rn_die "connections=$P_connections is fewer than threads=$P_threads (wrk gives each thread connections/threads connections)"
[ "$P_connections" -le 100000 ] || rn_die "connections=$P_connections: at most 100000"
[ "$P_duration" -ge 1 ] || rn_die "duration must be at least 1 (seconds)"
[ "$P_duration" -le 86400 ] || rn_die "duration=$P_duration: at most 86400 seconds"
[ "$P_timeout" -ge 1 ] || rn_die "timeout must be at least 1 (seconds)"
rn_http_url ""  # url, or host + port + path (no note to add to its message)
set -- wrk -t "$P_threads" -c "$P_connections" -d "${P_duration}s" --timeout "${P_timeout}s"
[ "$P_latency" = on ] && set -- "$@" --latency
set -- "$@" "$P_url"
# `wrk -v` prints "wrk debian/4.1.0-3+b2 [epoll] Copyright (C) 2012 Will Glozer" (and exits 1)
rn_run wrk wrk wrk "$(wrk -v 2>&1 | head -n 1)" -- "$@"
