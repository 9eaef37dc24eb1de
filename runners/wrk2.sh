#!/bin/sh
# wrk2 HTTP client at a constant request rate: GETs of one URL over `connections` keep-alive
# connections shared by `threads` threads, `rate` requests per second in all, for `duration`
# seconds, against a web server in the measured environment (server-nginx.sh serving
# /file.bin). wrk2 times each request from when it was due, not from when it was sent, so a
# server that stalls is charged for the requests queued behind the stall ("coordinated
# omission"), and it prints its whole HdrHistogram: the latency at each percentile (the
# "Detailed Percentile spectrum", -L), from which the notebooks draw the latency CDF. A rate
# above what the server can serve measures the queue that grows for the whole run: keep it
# below (the report's Requests/sec says what was served).
#     sh runners/wrk2.sh OUTDIR host=10.0.0.2 port=8080 path=/file.bin rate=500 duration=10
#     sh runners/wrk2.sh OUTDIR url=http://127.0.0.1:18080/file.bin rate=200 duration=3
# The URL is url= when given (port and path are then not used), else http://host:port/path; a
# "{host}" in url= is replaced by host (as in wrk.sh). wrk2 is built from images/wrk2 (make
# debian); it writes its report to stdout and its errors to stderr.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare url= host=127.0.0.1 port=8080 path=/file.bin rate=100 threads=1 connections=10 \
    duration=10 timeout=2
rn_args "$@"
rn_require wrk2
rn_int port; rn_int rate; rn_int threads; rn_int connections; rn_int duration; rn_int timeout
[ "$P_rate" -ge 1 ] || rn_die "rate must be at least 1 (requests per second)"
[ "$P_rate" -le 1000000 ] || rn_die "rate=$P_rate: at most 1000000 requests per second"
[ "$P_threads" -ge 1 ] || rn_die "threads must be at least 1"
[ "$P_connections" -ge "$P_threads" ] || \
    rn_die "connections=$P_connections is fewer than threads=$P_threads (wrk2 gives each thread connections/threads connections)"
[ "$P_connections" -le 100000 ] || rn_die "connections=$P_connections: at most 100000"
[ "$P_duration" -ge 1 ] || rn_die "duration must be at least 1 (seconds)"
[ "$P_duration" -le 86400 ] || rn_die "duration=$P_duration: at most 86400 seconds"
[ "$P_timeout" -ge 1 ] || rn_die "timeout must be at least 1 (seconds)"
rn_http_url ""
set -- wrk2 -t "$P_threads" -c "$P_connections" -d "${P_duration}s" -R "$P_rate" \
    --timeout "${P_timeout}s" -L "$P_url"
# wrk2 calls itself wrk 4.0.0 (`-v`: "wrk 4.0.0 [epoll] Copyright (C) 2012 Will Glozer"); the
# build's source is named beside it
rn_run wrk2 wrk2 wrk "$(wrk2 -v 2>&1 | head -n 1) (wrk2 44a94c1, images/wrk2)" -- "$@"
