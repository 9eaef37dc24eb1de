#!/bin/sh
# redis-benchmark client (load generator, against redis-server in the measured environment):
# requests/s and the latency distribution per test at a given number of client connections,
# the paper's Figs 8-9 when swept over clients.
#     sh runners/redis-benchmark.sh OUTDIR host=10.0.0.2 clients=50 requests=100000 tests=get,set
# format=text keeps redis 7's full report (percentiles and cumulative distribution);
# format=csv one line per test. The pipeline depth is not printed by redis-benchmark, so it is
# recorded only here, as p_pipeline in meta. flushall=yes empties the server (redis-cli FLUSHALL,
# its answer into stderr) before the run, so every run starts from the same empty dataset.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare host=127.0.0.1 port=6379 clients=50 requests=100000 tests=set,get pipeline=1 \
    data_size=3 keyspace=0 threads=0 format=text flushall=no
rn_args "$@"
rn_require redis-benchmark
rn_int port; rn_int clients; rn_int requests; rn_int pipeline; rn_int data_size
rn_int keyspace; rn_int threads
rn_oneof format text csv
rn_oneof flushall yes no
[ "$P_requests" -gt 0 ] || rn_die "requests must be at least 1"
set -- redis-benchmark -h "$P_host" -p "$P_port" -c "$P_clients" -n "$P_requests" \
    -t "$P_tests" -P "$P_pipeline" -d "$P_data_size"
[ "$P_keyspace" -gt 0 ] && set -- "$@" -r "$P_keyspace"
[ "$P_threads" -gt 0 ] && set -- "$@" --threads "$P_threads"
[ "$P_format" = csv ] && set -- "$@" --csv
rn_begin redis-benchmark redis-benchmark redis-benchmark "$(redis-benchmark --version)" -- "$@"
if [ "$P_flushall" = yes ]; then
    rn_require redis-cli
    if ! redis-cli -h "$P_host" -p "$P_port" FLUSHALL >> "$RN_TMP/stderr" 2>&1; then
        echo "redis-cli FLUSHALL failed: the run would not start from an empty dataset" >> "$RN_TMP/stderr"
        rn_finish 1
    fi
fi
rn_exec "$@"
rn_finish "$RN_STATUS"
