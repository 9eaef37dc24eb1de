#!/bin/sh
# sysbench 1.0 micro-benchmarks: cpu, memory, threads, mutex, fileio (the LXC/VirtualBox/physical
# suite of the sysbench seed study). fileio runs prepare, run and cleanup in `directory`; only the
# run's report goes to output (prepare and cleanup write to stderr).
#     sh runners/sysbench.sh OUTDIR test=cpu threads=2 time=10 cpu_max_prime=20000
#     sh runners/sysbench.sh OUTDIR test=fileio file_total_size=1G file_test_mode=rndrw
# report_interval=N adds per-second interval lines, histogram=on the latency histogram.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare test=cpu threads=1 time=10 events=0 report_interval=0 histogram=off \
    cpu_max_prime=10000 memory_block_size=1K memory_total_size=100G memory_oper=write \
    memory_access_mode=seq mutex_locks=50000 file_total_size=128M file_test_mode=rndrw \
    file_num=16 directory=/var/tmp/overhead-sysbench
rn_args "$@"
rn_require sysbench
rn_oneof test cpu memory threads mutex fileio
rn_int threads; rn_int time; rn_int events; rn_int report_interval
rn_oneof histogram on off
# events=0 means "no limit"; with time=0 too sysbench would run forever: refuse that.
[ "$P_time" -gt 0 ] || [ "$P_events" -gt 0 ] || rn_die "time=0 and events=0 would run without end"
set -- sysbench "$P_test" --threads="$P_threads" --time="$P_time" --events="$P_events" \
    --report-interval="$P_report_interval" --histogram="$P_histogram"
memory="memory_block_size memory_total_size memory_oper memory_access_mode"
file="file_total_size file_test_mode file_num directory"
# shellcheck disable=SC2086 # the lists are meant to split into names
case "$P_test" in
    cpu) set -- "$@" --cpu-max-prime="$P_cpu_max_prime"
        rn_unused $memory mutex_locks $file ;;
    memory) set -- "$@" --memory-block-size="$P_memory_block_size" \
        --memory-total-size="$P_memory_total_size" --memory-oper="$P_memory_oper" \
        --memory-access-mode="$P_memory_access_mode"
        rn_unused cpu_max_prime mutex_locks $file ;;
    threads) rn_unused cpu_max_prime $memory mutex_locks $file ;;
    mutex) set -- "$@" --mutex-locks="$P_mutex_locks"
        rn_unused cpu_max_prime $memory $file ;;
    fileio) set -- "$@" --file-total-size="$P_file_total_size" \
        --file-test-mode="$P_file_test_mode" --file-num="$P_file_num"
        rn_unused cpu_max_prime $memory mutex_locks ;;
esac
rn_begin sysbench sysbench sysbench "$(sysbench --version)" -- "$@" run
if [ "$P_test" = fileio ]; then
    mkdir -p "$P_directory"
    cd "$P_directory" || rn_die "cannot enter directory '$P_directory'"
    "$@" prepare >> "$RN_TMP/stderr" 2>&1 || rn_finish $?
fi
rn_exec "$@" run
if [ "$P_test" = fileio ]; then
    "$@" cleanup >> "$RN_TMP/stderr" 2>&1 || true
fi
rn_finish "$RN_STATUS"
