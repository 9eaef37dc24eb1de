#!/bin/sh
# ApacheBench (ab) client: HTTP GETs of one URL, `concurrency` at a time, against a web server
# in the measured environment (server-nginx.sh serving /file.bin): requests/s, time per
# request, transfer rate, failed requests and the latency percentiles, in ab's text report.
#     sh runners/ab.sh OUTDIR host=10.0.0.2 port=8080 path=/file.bin requests=100000 concurrency=100
#     sh runners/ab.sh OUTDIR url=http://127.0.0.1:18080/file.bin requests=1000 concurrency=10
# The URL is url= when given (port and path are then not used), else http://host:port/path.
# The campaign engine passes the server's address as host= (and does not expand parameters'
# {host}): a "{host}" in url= is replaced by host. keepalive=on reuses connections
# (ab -k). recv_errors=count keeps going when a connection is reset (ab -r: it is counted
# among the failed requests, which the report prints; stop, ab's default, ends the run
# with no report). The run is bounded: timeout (ab -s) is the longest ab waits on one socket, and
# timelimit (ab -t) ends the run after that many seconds even if not all requests were made
# (the report's "Complete requests" then says how many were; the runner notes it in stderr).
# ab's progress lines ("Completed 100 requests", "Finished N requests") go to stderr.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare url= host=127.0.0.1 port=8080 path=/file.bin requests=10000 concurrency=10 \
    keepalive=off timelimit=60 timeout=30 recv_errors=stop
rn_args "$@"
rn_require ab
rn_int port; rn_int requests; rn_int concurrency; rn_int timelimit; rn_int timeout
rn_oneof keepalive off on
rn_oneof recv_errors stop count
[ "$P_requests" -ge 1 ] || rn_die "requests must be at least 1"
[ "$P_requests" -le 100000000 ] || rn_die "requests=$P_requests: ab keeps a record per request; at most 100000000"
[ "$P_concurrency" -ge 1 ] || rn_die "concurrency must be at least 1"
[ "$P_concurrency" -le "$P_requests" ] || \
    rn_die "concurrency=$P_concurrency is more than requests=$P_requests (ab cannot open more connections than it makes requests)"
[ "$P_concurrency" -le 20000 ] || rn_die "concurrency=$P_concurrency: ab allows at most 20000"
[ "$P_timelimit" -ge 1 ] || rn_die "timelimit must be at least 1 (seconds): the run must be bounded"
[ "$P_timeout" -ge 1 ] || rn_die "timeout must be at least 1 (seconds)"
rn_http_url "(ab needs the path, at least /)"
# -t before -n: ab's -t sets the number of requests to 50000, a later -n sets it back
set -- ab -t "$P_timelimit" -n "$P_requests" -c "$P_concurrency" -s "$P_timeout"
[ "$P_keepalive" = on ] && set -- "$@" -k
# count: a connection reset or refused mid-run is a failed request in ab's report (ab -r)
# instead of ending the run with no report at all
[ "$P_recv_errors" = count ] && set -- "$@" -r
set -- "$@" "$P_url"
rn_begin ab ab ab "$(ab -V 2>&1 | head -n 1)" -- "$@"
rn_exec "$@"
if [ "$RN_STATUS" -eq 0 ]; then
    completed=$(sed -n 's/^Complete requests: *\([0-9][0-9]*\).*/\1/p' "$RN_TMP/output")
    if [ -n "$completed" ] && [ "$completed" -lt "$P_requests" ]; then
        echo "ab.sh: the time limit (timelimit=$P_timelimit s) ended the run after $completed of $P_requests requests" >> "$RN_TMP/stderr"
    fi
fi
rn_finish "$RN_STATUS"
