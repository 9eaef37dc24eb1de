#!/bin/sh
# sysbench 1.0 OLTP against MySQL/MariaDB (the paper's MySQL section, Figs 10-13, swept over
# threads): transactions/s, queries/s and per-transaction latency. Runs on the load-generating
# host; the server may be native, in a container or in a VM.
#     sh runners/sysbench-oltp.sh OUTDIR host=10.0.0.2 threads=64 time=300 test=oltp_read_only
#     sh runners/sysbench-oltp.sh OUTDIR socket=/run/mysqld/mysqld.sock user=root threads=8
# A password never goes on the command line or into the trial: put `mysql-password=...` (and
# any other sysbench option) in a sysbench config file readable only by you and pass
# config_file=PATH; the file's name is recorded, its contents are not.
# prepare=yes drops and re-creates the test tables first (their output goes to stderr).
. "$(dirname "$0")/common.sh"
rn_declare test=oltp_read_only threads=1 time=10 tables=1 table_size=10000 prepare=yes \
    host=127.0.0.1 port=3306 socket="" user=sbtest db=sbtest config_file="" \
    report_interval=0 histogram=off
rn_args "$@"
rn_require sysbench
rn_oneof test oltp_read_only oltp_read_write oltp_write_only oltp_point_select \
    oltp_update_index oltp_update_non_index oltp_insert oltp_delete
rn_int threads; rn_int time; rn_int tables; rn_int table_size; rn_int port; rn_int report_interval
rn_oneof prepare yes no
rn_oneof histogram on off
[ "$P_time" -gt 0 ] || rn_die "time must be at least 1 s"
set -- sysbench "$P_test" --db-driver=mysql --mysql-user="$P_user" --mysql-db="$P_db" \
    --tables="$P_tables" --table-size="$P_table_size"
if [ -n "$P_socket" ]; then
    set -- "$@" --mysql-socket="$P_socket"
    rn_unused host port
else
    set -- "$@" --mysql-host="$P_host" --mysql-port="$P_port"
    rn_unused socket
fi
if [ -n "$P_config_file" ]; then
    [ -r "$P_config_file" ] || rn_die "config_file '$P_config_file' is not readable"
    set -- "$@" --config-file="$P_config_file"
fi
# the run's own options (validated integers and on/off, so word splitting is safe)
run_opts="--threads=$P_threads --time=$P_time --report-interval=$P_report_interval --histogram=$P_histogram"
# shellcheck disable=SC2086
rn_begin sysbench-oltp sysbench sysbench "$(sysbench --version)" -- "$@" $run_opts run
if [ "$P_prepare" = yes ]; then
    "$@" cleanup >> "$RN_TMP/stderr" 2>&1 || true
    if ! "$@" prepare >> "$RN_TMP/stderr" 2>&1; then
        rn_finish 1
    fi
fi
# shellcheck disable=SC2086
rn_exec "$@" $run_opts run
rn_finish "$RN_STATUS"
