#!/bin/sh
# sysbench 1.0 micro-benchmarks: cpu, memory, threads, mutex, fileio (the LXC/VirtualBox/physical
# suite of the sysbench seed study). fileio runs prepare, run and cleanup in `directory`; only the
# run's report goes to output (prepare and cleanup write to stderr).
#     sh runners/sysbench.sh OUTDIR test=cpu threads=2 time=10 cpu_max_prime=20000
#     sh runners/sysbench.sh OUTDIR test=fileio file_total_size=1G file_test_mode=rndrw
# report_interval=N adds per-second interval lines, histogram=on the latency histogram.
#
# fs=ext4|xfs|btrfs (fileio only; needs root): the run happens in a new file system of that
# type, so file systems can be compared on one machine. A sparse image file of fs_size bytes
# (auto: twice file_total_size, at least 512M: mkfs.xfs wants 300 MB) is made beside
# `directory` (for the default directory, under /var/tmp), attached to a loop device, made
# into the file system (ext4 without lazy inode table and journal initialisation, so no
# background writes during the run) and mounted on `directory` (which must be empty and not a
# mount point); afterwards, on every exit path, it is unmounted, detached and deleted.
# loop_dio=on attaches it with direct I/O, so the image's own file system does not cache it a
# second time (a loop device then stands for a disk, as a partition would); off keeps the
# double caching. meta records the loop device, the mkfs command and version, the mount
# options and the file system the image is on (fs_* lines); p_fs, p_fs_size (bytes) and
# p_loop_dio are the run's parameters. fs=none (the default) runs in `directory` as it is.
#     sh runners/sysbench.sh OUTDIR test=fileio fs=xfs file_total_size=1G time=60
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare test=cpu threads=1 time=10 events=0 report_interval=0 histogram=off \
    cpu_max_prime=10000 memory_block_size=1K memory_total_size=100G memory_oper=write \
    memory_access_mode=seq mutex_locks=50000 file_total_size=128M file_test_mode=rndrw \
    file_num=16 directory=/var/tmp/overhead-sysbench fs=none fs_size=auto loop_dio=on
rn_args "$@"
rn_require sysbench
rn_oneof test cpu memory threads mutex fileio
rn_int threads; rn_int time; rn_int events; rn_int report_interval
rn_oneof histogram on off
rn_oneof fs none ext4 xfs btrfs
rn_oneof loop_dio on off
[ "$P_fs" = none ] || [ "$P_test" = fileio ] || \
    rn_die "fs=$P_fs applies only to test=fileio (a file system for its files), not test=$P_test"

FS_DIR="" FS_MOUNTED=no FS_MADE_DIR=no
# fs_cleanup: unmount, detach and delete what fs_setup made (whatever part of it was made).
# shellcheck disable=SC2317 # run by the EXIT trap
fs_cleanup() {
    cd /
    if [ "$FS_MOUNTED" = yes ]; then
        umount "$FS_DIR" 2>/dev/null || umount -l "$FS_DIR" 2>/dev/null || true
        FS_MOUNTED=no
    fi
    rn_loop_cleanup  # detach (our own device only) and delete the image
    if [ "$FS_MADE_DIR" = yes ]; then rmdir "$FS_DIR" 2>/dev/null || true; fi
    FS_MADE_DIR=no
}

# fs_setup: make the file system of fs= and mount it on directory (see the header).
fs_setup() {
    [ "$(id -u)" -eq 0 ] || rn_die "fs=$P_fs needs root (losetup, mkfs, mount)"
    rn_require losetup mount umount truncate findmnt df
    command -v "mkfs.$P_fs" >/dev/null 2>&1 || \
        rn_die "fs=$P_fs: mkfs.$P_fs is not installed on this host (Debian: $(case $P_fs in ext4) echo e2fsprogs ;; xfs) echo xfsprogs ;; btrfs) echo btrfs-progs ;; esac))"
    [ -e /dev/loop-control ] || [ -e /dev/loop0 ] || \
        rn_die "fs=$P_fs needs a loop device and this host has none (no /dev/loop-control: a container without them?)"
    rn_size file_total_size "$P_file_total_size"
    _total=$SIZE_BYTES
    if [ "$P_fs_size" = auto ]; then
        SIZE_BYTES=$((_total * 2))
        [ "$SIZE_BYTES" -ge 536870912 ] || SIZE_BYTES=536870912
    else
        rn_size fs_size "$P_fs_size"
    fi
    [ "$SIZE_BYTES" -gt "$_total" ] || \
        rn_die "fs_size=$P_fs_size ($SIZE_BYTES bytes) does not hold file_total_size=$P_file_total_size ($_total bytes) and the file system's own metadata"
    _asked="fs_size=$P_fs_size ($SIZE_BYTES bytes)"
    P_fs_size=$SIZE_BYTES  # meta records the size in bytes
    mkdir -p "$(dirname "$P_directory")"
    _parent=$(cd "$(dirname "$P_directory")" && pwd -P)
    FS_DIR="$_parent/$(basename "$P_directory")"
    _avail=$(df -Pk "$_parent" | awk 'NR == 2 {print $4 * 1024}')
    [ "$_avail" -gt "$_total" ] || \
        rn_die "fs=$P_fs: the image's files would not fit in $_parent ($_avail bytes free, file_total_size=$P_file_total_size)"
    if [ -d "$FS_DIR" ]; then
        findmnt -M "$FS_DIR" > /dev/null 2>&1 && \
            rn_die "directory=$P_directory is a mount point already (another run's file system?)"
        [ -z "$(ls -A "$FS_DIR")" ] || \
            rn_die "directory=$P_directory is not empty: fs=$P_fs mounts a new file system on it"
    elif [ -e "$FS_DIR" ]; then
        rn_die "directory=$P_directory is not a directory"
    fi
    trap fs_cleanup EXIT
    trap 'rm -rf "$RN_TMP"; exit 130' INT TERM HUP  # (the EXIT trap then runs)
    if [ ! -d "$FS_DIR" ]; then mkdir "$FS_DIR"; FS_MADE_DIR=yes; fi
    RN_LOOP_IMAGE="$_parent/.$(basename "$P_directory").$P_fs.$$.img"
    truncate -s "$SIZE_BYTES" "$RN_LOOP_IMAGE" || rn_die "cannot make the image file $RN_LOOP_IMAGE"
    rn_loop_attach "fs=$P_fs" "$P_loop_dio"
    if [ "$P_loop_dio" = on ] && [ "$RN_LOOP_DIO" != 1 ]; then
        rn_die "loop_dio=on: $RN_LOOP could not read its image with direct I/O (the file system under $_parent does not allow it?); use loop_dio=off"
    fi
    case "$P_fs" in
        ext4) set -- mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 ;;
        xfs) set -- mkfs.xfs -q -f ;;
        btrfs) set -- mkfs.btrfs -q -f ;;
    esac
    rn_meta fs_mkfs "$* $RN_LOOP"
    rn_meta fs_mkfs_version "$(case $P_fs in ext4) mkfs.ext4 -V 2>&1 | head -n 1 ;; xfs) mkfs.xfs -V 2>&1 ;; btrfs) mkfs.btrfs --version 2>&1 ;; esac)"
    if ! _err=$("$@" "$RN_LOOP" 2>&1); then
        # its reason, not the usage text mkfs.xfs prints after it
        _why=$(printf '%s\n' "$_err" | grep -i -E 'error|must|small|invalid|cannot|fail' | head -n 3)
        [ -n "$_why" ] || _why=$(printf '%s\n' "$_err" | head -n 3)
        rn_die "mkfs.$P_fs failed on the image of $_asked: $_why"
    fi
    if ! _err=$(mount -t "$P_fs" "$RN_LOOP" "$FS_DIR" 2>&1); then
        rn_die "fs=$P_fs: mount failed ($_err; is $P_fs in this kernel?)"
    fi
    FS_MOUNTED=yes
    _free=$(df -Pk "$FS_DIR" | awk 'NR == 2 {print $4 * 1024}')
    [ "$_free" -gt "$_total" ] || \
        rn_die "$_asked: the new $P_fs has $_free bytes free, not enough for file_total_size=$P_file_total_size ($_total bytes); make fs_size larger"
    rn_meta fs_loop_device "$RN_LOOP"
    rn_meta fs_loop_dio "$RN_LOOP_DIO"
    rn_meta fs_image "$RN_LOOP_IMAGE"
    rn_meta fs_image_fstype "$(findmnt -n -o FSTYPE -T "$_parent" | head -n 1)"
    rn_meta fs_mount_options "$(findmnt -n -o OPTIONS -M "$FS_DIR" | head -n 1)"
    rn_meta fs_free_bytes "$_free"
}
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
        rn_unused cpu_max_prime $memory mutex_locks
        [ "$P_fs" != none ] || rn_unused fs_size loop_dio ;;
esac
[ "$P_test" = fileio ] || rn_unused fs fs_size loop_dio
[ "$P_fs" = none ] || fs_setup
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
