#!/bin/sh
# The local hosts' NFS export (the fsync study: a VM's disk image on NFS, a guest mounting NFS):
#   sh scripts/nfs-server.sh up     start rpcbind and nfs-ganesha unless they run (idempotent)
#   sh scripts/nfs-server.sh down   stop what `up` started, by the pids it recorded
# scripts/hosts-up.sh and hosts-down.sh call it; it may also run alone (as root).
#
# This machine's kernel may have neither an NFS server nor an NFS client: nfs-ganesha serves the
# folder from user space (FSAL VFS, which needs name_to_handle_at/open_by_handle_at; ext4 has
# them). It listens on 127.0.0.1 only, NFSv3 (with MOUNT, which QEMU's NFS driver, libnfs,
# needs: it finds the MOUNT and NFS ports through the portmapper) and NFSv4 (the guest's
# kernel client, through QEMU's user-mode network: 10.0.2.2 in the guest is 127.0.0.1 here).
#   export   data/hosts/nfs/export       as nfs://127.0.0.1/overhead (pseudo path /overhead,
#            also the NFSv3 mount path), rw, no_root_squash, for 127.0.0.1 only
#   files    data/hosts/nfs/ganesha.conf ganesha.pid ganesha.log state/ (NFSv4 recovery)
#            data/hosts/nfs/rpcbind.pid rpcbind.log (when this script started rpcbind)
# Sync semantics, as the seed's `sync` export: ganesha answers an UNSTABLE write after its
# pwrite and a COMMIT, or a FILE_SYNC/DATA_SYNC write, after fsync(2) of the file on the host
# (tests/hosts/test_nfs.py traces it); it never claims data stable that is not (no knfsd `async`).
# NFS_Commit stays off: UNSTABLE writes are not turned into synchronous ones either.
#
# rpcbind: Debian's 1.2.6 crashes with -h (double free), and without it binds every address
# (0.0.0.0 and [::], TCP and UDP). It gets its sockets from systemd-socket-activate instead,
# /run/rpcbind.sock (where ganesha registers; the path rpcbind and libtirpc use) and
# 127.0.0.1:111, and, in a private mount namespace, an /etc/netconfig that lists only TCP over
# IPv4 and the local socket, so that it opens no socket of its own for udp, tcp6 or udp6.
# An rpcbind that already answers on 127.0.0.1 (the system's) is used and left alone.
set -eu
cd "$(dirname "$0")/.."
H=$(pwd)/data/hosts
N=$H/nfs
action=${1:-}
case $action in
  up) prog=hosts-up ;;
  down) prog=hosts-down ;;
  *) echo "usage: sh scripts/nfs-server.sh up|down" >&2; exit 2 ;;
esac
# the pseudo path: lib/overhead/environments/qemu.py NFS_URL is nfs://127.0.0.1$PSEUDO
PSEUDO=/overhead
RPC_SOCK=/run/rpcbind.sock

say() { printf '%s: %s\n' "$prog" "$*"; }
# shellcheck source=scripts/hostlib.sh
. scripts/hostlib.sh
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
alive() { # alive PIDFILE COMM: the pidfile names a live process called COMM
  [ -s "$1" ] || return 1
  _pid=$(cat "$1")
  [ "$(cat "/proc/$_pid/comm" 2>/dev/null)" = "$2" ] && running "$_pid"
}
# an RPC program answers its NULL call on 127.0.0.1 over TCP (rpcinfo asks the portmapper)
answers() { timeout 10 rpcinfo -T tcp 127.0.0.1 "$1" "$2" >/dev/null 2>&1; }


[ "$(id -u)" = 0 ] || die "nfs: must run as root (rpcbind takes port 111)"
mkdir -p "$N"
# one of us at a time (hosts-up holds its own lock, but this script may run alone)
exec 8>"$N/.lock"
flock -w 600 8 || die "nfs: $N/.lock: another nfs-server.sh still holds it"

if [ "$action" = down ]; then
  # ganesha first: it unregisters from rpcbind as it goes
  stop nfs-ganesha "$N/ganesha.pid" ganesha.nfsd 30
  if [ -s "$N/rpcbind.pid" ]; then
    stop rpcbind "$N/rpcbind.pid" rpcbind 10
    # its socket came from systemd-socket-activate: nobody else removes it
    [ -S "$RPC_SOCK" ] && ! answers 100000 2 && rm -f "$RPC_SOCK"
  else
    say "rpcbind: not started by hosts-up"
  fi
  exit 0
fi

for tool in ganesha.nfsd:ganesha.nfsd rpcbind:rpcbind rpcinfo:rpcinfo \
            systemd-socket-activate:systemd-socket-activate; do
  command -v "${tool#*:}" >/dev/null 2>&1 || die "${tool%%:*} not found: run make debian (scripts/debian-packages.sh)"
done
fsal=
for f in /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so /usr/lib64/ganesha/libfsalvfs.so \
         /usr/lib/ganesha/libfsalvfs.so; do
  [ -n "$fsal" ] || [ ! -e "$f" ] || fsal=$f
done
[ -n "$fsal" ] || die "nfs-ganesha: FSAL VFS (libfsalvfs.so) not found: apt-get install nfs-ganesha-vfs"
mkdir -p "$N/export" "$N/state"
t_nfs=$(now)

# --- rpcbind -----------------------------------------------------------------------------------
rpid=$N/rpcbind.pid
rpcbind_started=no
if answers 100000 2; then
  if alive "$rpid" rpcbind; then say "rpcbind: running on 127.0.0.1:111 (pid $(cat "$rpid")), left alone"
  else say "rpcbind: running (not started by hosts-up, left alone)"; rm -f "$rpid"; fi
else
  rm -f "$rpid"
  # a socket file left by an rpcbind that is gone would make the bind fail
  [ -S "$RPC_SOCK" ] && rm -f "$RPC_SOCK"
  grep -E '^(tcp|local|unix)[[:space:]]' /etc/netconfig > "$N/netconfig"
  grep -q '^tcp[[:space:]]' "$N/netconfig" || die "rpcbind: no tcp line in /etc/netconfig"
  # systemd-socket-activate execs rpcbind at the first connection (the check below)
  # shellcheck disable=SC2016
  setsid -f unshare -m --propagation private sh -c \
    'mount --bind "$2" /etc/netconfig || exit 1; echo $$ > "$1"; shift 2; exec systemd-socket-activate "$@"' \
    sh "$rpid" "$N/netconfig" -l "$RPC_SOCK" -l 127.0.0.1:111 rpcbind -f \
    >> "$N/rpcbind.log" 2>&1 < /dev/null 9>&- 8>&-
  n=0; until answers 100000 2; do
    [ $n -lt 100 ] || { tail -n 5 "$N/rpcbind.log" >&2; die "rpcbind: no answer on 127.0.0.1:111 within 10 s (log $N/rpcbind.log)"; }
    sleep 0.1; n=$((n + 1))
  done
  alive "$rpid" rpcbind || die "rpcbind: answers, but $rpid does not name it"
  rpcbind_started=yes
  say "rpcbind: started on 127.0.0.1:111 (pid $(cat "$rpid")) in $(since "$t_nfs")"
fi

# --- nfs-ganesha -------------------------------------------------------------------------------
conf=$N/ganesha.conf
cat > "$conf.new" <<EOF
# written by scripts/nfs-server.sh: the local hosts' export, on 127.0.0.1 only
NFS_CORE_PARAM {
    Bind_addr = 127.0.0.1;
    NFS_Port = 2049;
    Protocols = 3, 4;
    # TCP only; no locking (NLM needs rpc.statd), no quotas
    Enable_UDP = false;
    Enable_NLM = false;
    Enable_RQUOTA = false;
    # NFSv3 (QEMU's libnfs) mounts the same path as NFSv4: $PSEUDO
    mount_path_pseudo = true;
    Plugins_Dir = "$(dirname "$fsal")";
}
NFSv4 {
    # no 90 s grace period after a start (nothing to recover: one client, loopback)
    Graceless = true;
    RecoveryBackend = fs;
    RecoveryRoot = "$N/state";
}
NFS_KRB5 {
    Active_krb5 = false;
    CCacheDir = "$N/state";
}
# the exported folder is also changed on the host (tests, users): with cached attributes and
# names ganesha answered STALE for a file deleted and made again there. Attributes are asked
# anew at each use and a directory whose attributes changed loses its cached names, as the
# kernel's nfsd, which sees the host's file system directly
MDCACHE {
    Use_Getattr_Directory_Invalidation = true;
}
EXPORT {
    Export_Id = 1;
    Path = "$N/export";
    Pseudo = "$PSEUDO";
    Protocols = 3, 4;
    Transports = TCP;
    SecType = sys;
    Access_Type = None;
    Squash = No_Root_Squash;
    Attr_Expiration_Time = 0;
    # QEMU's user-mode network connects from 127.0.0.1: guests are this client too
    CLIENT {
        Clients = 127.0.0.1;
        Access_Type = RW;
    }
    FSAL {
        Name = VFS;
    }
}
EOF
gpid=$N/ganesha.pid
registered() { answers 100003 3 && answers 100003 4 && answers 100005 3; }
if alive "$gpid" ganesha.nfsd && cmp -s "$conf.new" "$conf" && registered; then
  rm "$conf.new"
  say "nfs-ganesha: running on 127.0.0.1:2049 (pid $(cat "$gpid")), export $N/export as nfs://127.0.0.1$PSEUDO, left alone"
  exit 0
fi
if alive "$gpid" ganesha.nfsd; then
  if ! cmp -s "$conf.new" "$conf"; then why="configuration changed"
  elif [ "$rpcbind_started" = yes ]; then why="rpcbind was restarted, its registrations are gone"
  else why="not registered with rpcbind"; fi
  say "nfs-ganesha: $why, restarting pid $(cat "$gpid")"
  stop nfs-ganesha "$gpid" ganesha.nfsd 30 >/dev/null
fi
if ss -Hltn 'sport = :2049' 2>/dev/null | grep -q .; then
  die "nfs-ganesha: port 2049 is taken ($(ss -Hltnp 'sport = :2049' 2>/dev/null | head -n 1)): another NFS server runs here"
fi
mv "$conf.new" "$conf"
rm -f "$gpid"
t_g=$(now)
# it daemonizes itself and writes the pid file; its log says why when it does not come up
ganesha.nfsd -f "$conf" -L "$N/ganesha.log" -p "$gpid" -N NIV_EVENT < /dev/null 9>&- 8>&- \
  || { tail -n 10 "$N/ganesha.log" >&2; die "nfs-ganesha: did not start (log $N/ganesha.log)"; }
n=0; until alive "$gpid" ganesha.nfsd && registered; do
  if [ $n -ge 300 ]; then
    tail -n 10 "$N/ganesha.log" >&2; die "nfs-ganesha: no NFS or MOUNT answer on 127.0.0.1 within 30 s (log $N/ganesha.log)"
  fi
  sleep 0.1; n=$((n + 1))
done
say "nfs-ganesha: started on 127.0.0.1:2049 (pid $(cat "$gpid")) in $(since "$t_g"), export $N/export as nfs://127.0.0.1$PSEUDO"
