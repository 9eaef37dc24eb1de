#!/bin/sh
# Stop what scripts/hosts-up.sh started, by the PIDs it recorded: the private sshd, dockerd
# only when hosts-up started it (data/hosts/dockerd/dockerd.pid), nfs-ganesha and rpcbind
# (scripts/nfs-server.sh down: an rpcbind that was already running is left alone), Podman
# containers campaigns left and the rootless user's processes. A Docker engine that was already
# running is left alone. Keys, images (data/hosts/image/,
# overhead/bench:*) and the NFS export's files (data/hosts/nfs/export) stay.
set -eu
cd "$(dirname "$0")/.."
H=$(pwd)/data/hosts

say() { printf 'hosts-down: %s\n' "$*"; }
# shellcheck source=scripts/hostlib.sh
. scripts/hostlib.sh

# stop_guests: QEMU guests that campaigns on this machine booted (their state folders are
# /var/tmp/overhead/<campaign>/vm-<environment>/, the engine's remote folder) and left running:
# a campaign or test killed before its teardown cannot stop its VM, and a VM left running holds
# its forwarded ports (127.0.0.1:10022) against the next one. Only a qemu-system process is
# signalled (a stale pidfile may name another process by now).
stop_guests() {
  for pidfile in /var/tmp/overhead/*/vm-*/qemu.pid; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    # /proc/PID/comm holds 15 characters: qemu-system-x86_64 reads qemu-system-x86
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
    case $comm in qemu-system*) running "$pid" && stop "guest $(dirname "$pidfile")" "$pidfile" "$comm" 30 ;; esac
  done
  # a guest on a bridge (a vm environment with `bridge:`): its tap, named in its state folder,
  # goes once its QEMU has
  for tapfile in /var/tmp/overhead/*/vm-*/tap; do
    [ -s "$tapfile" ] || continue
    pid=$(cat "$(dirname "$tapfile")/qemu.pid" 2>/dev/null) || pid=
    if [ -n "$pid" ] && running "$pid"; then continue; fi
    tap=$(cat "$tapfile")
    ip link del "$tap" 2>/dev/null && say "tap $tap: removed"
    rm -f "$tapfile"
  done
}

# stop_servers: servers (MariaDB, redis-server, netserver, nuttcp, mpstat monitors) that
# campaigns started natively on this machine and left running when they were killed before
# their teardown. Their pid files (/var/tmp/overhead/<campaign>/trials/server-*.pid) hold
# "PID STARTTIME"; a session is stopped only if that pid still leads its own session with that
# start time (a pid written inside a container, or reused since, names another process).
stop_servers() {
  for pidfile in /var/tmp/overhead/*/trials/server-*.pid; do
    [ -s "$pidfile" ] || continue
    read -r p st < "$pidfile" || continue
    [ -n "$st" ] || continue
    now_st=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f20)
    sid=$(ps -o sid= -p "$p" 2>/dev/null | tr -d ' ')
    if [ "$now_st" = "$st" ] && [ "$sid" = "$p" ]; then
      kill -TERM "-$p" 2>/dev/null || true
      kill -CONT "-$p" 2>/dev/null || true  # one a paused environment left stopped
      n=0
      while running "$p" && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
      kill -KILL "-$p" 2>/dev/null || true
      say "server $(basename "$pidfile" .pid): stopped the session of pid $p"
      rm -f "$pidfile"
    fi
  done
}

# remove_cgroups: the campaigns' cgroups (overhead/<campaign>/<environment>, where the engine
# accounts each environment's processes; an LXC container's are in every v1 hierarchy), left
# when a campaign was killed before its teardown; an empty one is removed, one that still holds
# a process stays.
remove_cgroups() {
  for root in /sys/fs/cgroup/* /sys/fs/cgroup; do
    [ -d "$root/overhead" ] || continue
    find "$root/overhead" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
}

# stop_podman: Podman containers campaigns left (named overhead-<campaign>-<environment>), root's
# and the rootless user's, their pasta processes, then that user's Podman pause process (it holds
# the user namespace every rootless podman command joins); the images stay in the stores.
stop_podman() {
  command -v podman >/dev/null 2>&1 || return 0
  for who in root overhead-rootless; do
    id -u "$who" >/dev/null 2>&1 || continue
    names=$( (cd / && runuser -u "$who" -- podman ps -a --format '{{.Names}}' 2>/dev/null) | grep '^overhead-' || true)
    for n in $names; do
      (cd / && runuser -u "$who" -- podman rm -f -t 0 "$n" >/dev/null 2>&1) || true
      (cd / && runuser -u "$who" -- podman volume rm -f "$n" >/dev/null 2>&1) || true
      say "podman ($who): removed container $n"
    done
  done
  for pidfile in /var/tmp/overhead*/*/overhead-*.pasta.pid; do
    [ -s "$pidfile" ] || continue
    p=$(cat "$pidfile")
    case $(cat "/proc/$p/comm" 2>/dev/null) in pasta*|passt*) kill "$p"; say "pasta: stopped pid $p";; esac
    rm -f "$pidfile"
  done
  if id -u overhead-rootless >/dev/null 2>&1 && pgrep -u overhead-rootless >/dev/null 2>&1; then
    pkill -u overhead-rootless || true
    n=0; while pgrep -u overhead-rootless >/dev/null 2>&1 && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
    pkill -KILL -u overhead-rootless 2>/dev/null || true
    say "podman: stopped the processes of overhead-rootless (its pause process)"
  fi
}

# stop_lxc: LXC containers campaigns left (named overhead-<campaign>-<environment>, in
# /var/lib/lxc) with their folders (the overlay's upper layer; the image tree below is never
# written), then the bridges the environments made (alias overhead-lxc) once nothing is on them.
stop_lxc() {
  command -v lxc-ls >/dev/null 2>&1 || return 0
  for n in $(lxc-ls -1 2>/dev/null | grep '^overhead-'); do
    lxc-stop -k -n "$n" >/dev/null 2>&1 || true
    lxc-destroy -n "$n" >/dev/null 2>&1 || rm -rf "/var/lib/lxc/$n"
    say "lxc: removed container $n"
  done
  for b in /sys/class/net/*; do
    [ "$(cat "$b/ifalias" 2>/dev/null)" = overhead-lxc ] || continue
    [ -z "$(ls "$b/brif" 2>/dev/null)" ] || continue
    ip link del "${b##*/}" && say "lxc: removed bridge ${b##*/}"
  done
}

stop_guests
stop_servers
stop_podman
stop_lxc
[ -d "$H" ] || { say "nothing else to stop ($H does not exist)"; exit 0; }
t_all=$(now)
stop sshd "$H/sshd/sshd.pid" sshd 10
# dockerd stops its containers and its own containerd before it exits
stop dockerd "$H/dockerd/dockerd.pid" dockerd 60
# after the guests (one may have its disk on the export, or the export mounted)
sh scripts/nfs-server.sh down || say "nfs: scripts/nfs-server.sh down failed"
remove_cgroups
say "done in $(since "$t_all"); images kept in $H/image and docker images overhead/bench:*"
