#!/bin/sh
# hdparm -tT: cached reads (-T, the page cache's copy speed, no device I/O) and buffered disk
# reads (-t, sequential reads through the block device after flushing its buffer cache) of
# one block device: the seed study's raw-disk measure (physical vs LXC vs VirtualBox).
#     sh runners/hdparm.sh OUTDIR                          the device holding /var/tmp
#     sh runners/hdparm.sh OUTDIR device=auto directory=/srv/data
#     sh runners/hdparm.sh OUTDIR device=/dev/sdb direct=on
# device=auto finds the file system holding `directory` (findmnt) and its block device (the
# mount's major:minor in /sys/dev/block, else the mount's source); a partition is measured as
# the whole device it belongs to (sda1 -> sda). p_device is the device measured; the meta
# also keeps what was found (mount_source, mount_fstype, mount_target). A directory on a file
# system without a block device of its own here (overlay or tmpfs, a container's volume whose
# disk the container cannot see) is a usage error naming what it is on. direct=on adds
# --direct (O_DIRECT reads, bypassing the page cache). Needs root (BLKFLSBUF).
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare device=auto directory=/var/tmp direct=off
rn_args "$@"
origin=""
rn_require hdparm
rn_oneof direct off on

if [ "$P_device" = auto ]; then
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
