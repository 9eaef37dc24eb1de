#!/bin/sh
# hdparm -tT: cached reads (-T, the page cache's copy speed, no device I/O) and buffered disk
# reads (-t, sequential reads through the block device after flushing its buffer cache) of
# one block device: the seed study's raw-disk measure (physical vs LXC vs VirtualBox).
#     sh runners/hdparm.sh OUTDIR                          the device holding /var/tmp
#     sh runners/hdparm.sh OUTDIR device=auto directory=/srv/data
#     sh runners/hdparm.sh OUTDIR device=/dev/sdb direct=on
#     sh runners/hdparm.sh OUTDIR device=loop loop_size=1G directory=/var/tmp
# device=auto finds the file system holding `directory` (findmnt) and its block device (the
# mount's major:minor in /sys/dev/block, else the mount's source); a partition is measured as
# the whole device it belongs to (sda1 -> sda). p_device is the device measured; the meta
# also keeps what was found (mount_source, mount_fstype, mount_target). A directory on a file
# system without a block device of its own here (overlay or tmpfs, a container's volume whose
# disk the container cannot see) is a usage error naming what it is on. direct=on adds
# --direct (O_DIRECT reads, bypassing the page cache). Needs root (BLKFLSBUF).
#
# device=loop, for a disk that cannot be opened here (a container's devices cgroup denies it):
# an image file of loop_size bytes (K, M, G suffixes: powers of 1024; a whole number of MiB,
# at least 16M; default 1G) is written in `directory`, real data all of it (random bytes, so
# nothing is a hole, compressed or deduplicated: no sparse file, no unwritten extents), with
# O_DIRECT and then fsync (none of it in the page cache, all of it on the disk; whatever the
# cache still holds of it is dropped with posix_fadvise DONTNEED), attached with `losetup
# --direct-io=on` (the loop device reads the file with O_DIRECT: the disk under the file
# system, not its cache) and read by hdparm -tT; on every exit path (success, failure, usage
# error, INT/TERM/HUP) the device is detached and the image deleted. The image must fit the
# free space of `directory` with 64 MiB to spare. p_device is the loop device, p_loop_size the
# size in bytes; loop_backing says in one line what the device stands for (the file, its size,
# the file system and the device under it, direct-io=on), and loop_image, loop_image_bytes,
# loop_image_allocated_bytes, loop_dio and mount_source/mount_fstype/mount_target (of
# `directory`) the same as separate facts. loop_size with another device is a usage error.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare device=auto directory=/var/tmp direct=off loop_size=1G
rn_args "$@"
origin=""
rn_require hdparm
rn_oneof direct off on
if [ "$P_device" != loop ]; then
    for _a in "$@"; do
        case "$_a" in
            loop_size=*) rn_die "loop_size=${_a#*=} applies only to device=loop (the size of the image file it reads), not device=$P_device" ;;
        esac
    done
    rn_unused loop_size
fi

# loop_setup: write the image, attach it with direct I/O, measure its loop device (see the header).
loop_setup() {
    rn_size loop_size "$P_loop_size"
    _bytes=$SIZE_BYTES
    if [ $((_bytes % 1048576)) -ne 0 ] || [ "$_bytes" -lt 16777216 ]; then
        rn_die "loop_size=$P_loop_size ($_bytes bytes) must be a whole number of MiB, at least 16M"
    fi
    [ "$(id -u)" -eq 0 ] || rn_die "device=loop needs root (losetup, and hdparm's BLKFLSBUF)"
    rn_require losetup dd df findmnt stat
    [ -e /dev/loop-control ] || [ -e /dev/loop0 ] || \
        rn_die "device=loop needs a loop device and this host has none (no /dev/loop-control: a container without them?)"
    [ -d "$P_directory" ] || rn_die "directory='$P_directory' (for device=loop: where its image is written) is not a directory"
    _dir=$(cd "$P_directory" && pwd -P)
    _avail=$(df -Pk "$_dir" | awk 'NR == 2 {print $4 * 1024}')
    [ "$_avail" -ge $((_bytes + 67108864)) ] || \
        rn_die "loop_size=$P_loop_size ($_bytes bytes) does not fit in directory=$P_directory: $_avail bytes free there, and the image must leave 64 MiB of them free"
    _src=$(findmnt -n -o SOURCE -T "$_dir" | head -n 1)
    _fstype=$(findmnt -n -o FSTYPE -T "$_dir" | head -n 1)
    _target=$(findmnt -n -o TARGET -T "$_dir" | head -n 1)
    trap rn_loop_cleanup EXIT  # (rn_args's INT/TERM/HUP trap exits, so it runs then too)
    RN_LOOP_IMAGE="$_dir/.overhead-hdparm.$$.img"
    # random bytes (nothing to leave as a hole, compress or deduplicate) with O_DIRECT (no copy
    # in the page cache) and fsync (on the disk, with its metadata, before anything reads it)
    if ! _err=$(dd if=/dev/urandom of="$RN_LOOP_IMAGE" bs=1M count=$((_bytes / 1048576)) \
            iflag=fullblock oflag=direct conv=excl,fsync status=none 2>&1); then
        rn_die "device=loop: the image of loop_size=$P_loop_size could not be written in directory=$P_directory, on $_fstype $_src (dd: $(printf '%s' "$_err" | head -n 1)); it needs O_DIRECT writes (not tmpfs) and the space"
    fi
    # whatever the page cache may still hold of the file is dropped (posix_fadvise DONTNEED)
    dd if="$RN_LOOP_IMAGE" iflag=nocache count=0 status=none 2>/dev/null || true
    _alloc=$(stat -c '%b %B' "$RN_LOOP_IMAGE" | awk '{printf "%.0f", $1 * $2}')
    rn_loop_attach device=loop on
    [ "$RN_LOOP_DIO" = 1 ] || \
        rn_die "device=loop: $RN_LOOP could not read its image with direct I/O (losetup --direct-io=on; dio=$RN_LOOP_DIO): $_fstype under directory=$P_directory does not allow it?"
    P_device=$RN_LOOP
    P_loop_size=$_bytes  # meta records the size in bytes
    origin=" (device=loop: a loop device over $RN_LOOP_IMAGE)"
    rn_meta loop_backing "file $RN_LOOP_IMAGE, $_bytes bytes ($_alloc allocated: random data written with O_DIRECT and fsync), on $_fstype $_src mounted at $_target, direct-io=on"
    rn_meta loop_image "$RN_LOOP_IMAGE"
    rn_meta loop_image_bytes "$_bytes"
    rn_meta loop_image_allocated_bytes "$_alloc"
    rn_meta loop_dio "$RN_LOOP_DIO"
    rn_meta mount_source "$_src"
    rn_meta mount_fstype "$_fstype"
    rn_meta mount_target "$_target"
}

if [ "$P_device" = loop ]; then
    loop_setup
elif [ "$P_device" = auto ]; then
    rn_require findmnt
    [ -d "$P_directory" ] || rn_die "directory='$P_directory' (for device=auto) is not a directory"
    src=$(findmnt -n -o SOURCE -T "$P_directory" | head -n 1)
    fstype=$(findmnt -n -o FSTYPE -T "$P_directory" | head -n 1)
    target=$(findmnt -n -o TARGET -T "$P_directory" | head -n 1)
    majmin=$(findmnt -n -o MAJ:MIN -T "$P_directory" | head -n 1 | tr -d ' ')
    found="$src ($fstype, mounted at $target)"
    name=""
    if [ -n "$majmin" ] && [ -e "/sys/dev/block/$majmin" ]; then
        name=$(basename "$(readlink -f "/sys/dev/block/$majmin")")
    else
        # btrfs reports an anonymous device number; its source names the device
        # (a bind mount or subvolume shows as /dev/sda2[/path])
        dev=${src%%\[*}
        case "$dev" in
            /dev/*) [ -b "$dev" ] && name=$(basename "$(readlink -f "$dev")") ;;
        esac
    fi
    [ -n "$name" ] || rn_die "device=auto: directory=$P_directory is on $found, which is not a block device; name one with device=/dev/..."
    # a partition is measured as its whole device
    if [ -e "/sys/class/block/$name/partition" ]; then
        name=$(basename "$(dirname "$(readlink -f "/sys/class/block/$name")")")
    fi
    [ -b "/dev/$name" ] || rn_die "device=auto: directory=$P_directory is on $found, block device $name, but /dev/$name is not here (a container sees the file system, not its disk); name one with device=/dev/..."
    P_device=/dev/$name
    origin=" (device=auto: the disk of directory=$P_directory, on $found)"
    rn_meta mount_source "$src"
    rn_meta mount_fstype "$fstype"
    rn_meta mount_target "$target"
else
    rn_unused directory
    [ -b "$P_device" ] || rn_die "device=$P_device is not a block device"
fi
# hdparm reports a device it cannot open only as "Operation not permitted": say which and why
if ! err=$(dd if="$P_device" of=/dev/null bs=4096 count=1 2>&1); then
    rn_die "device=$P_device$origin cannot be read here ($(printf '%s' "$err" | head -n 1)): not root, or a devices cgroup (a container) denies it"
fi
set -- hdparm -tT
[ "$P_direct" = on ] && set -- "$@" --direct
set -- "$@" "$P_device"
rn_begin hdparm hdparm hdparm "$(hdparm -V 2>&1 | head -n 1)" -- "$@"
rn_exec "$@"
rn_finish "$RN_STATUS"
