#!/bin/sh
# Bring up the local hosts that tests and the embedded campaigns measure on (as root; idempotent):
#   - a private sshd on 127.0.0.1:${OVERHEAD_SSH_PORT:-2222}, root by key only (the native host)
#   - a Docker engine (started here, with the crun runtime and the userland proxy off, when
#     none answers; a running one with other settings is refused, or restarted if hosts-up
#     started it, in one line naming the setting)
#   - one Debian bookworm image built with debootstrap (images/debian/build.sh): the Docker
#     image overhead/bench:<hash> (+ :latest) and the QEMU guest's disk, kernel and initrd
#   - Podman, rootful and rootless: the unprivileged user overhead-rootless (subordinate ids,
#     Podman's overlay store) that rootless environments log in as, over the same sshd and key;
#     the image in root's and that user's Podman stores; and, on a hybrid cgroup layout whose
#     cgroup2 mount holds a controller (crun refuses that), that controller (hugetlb) mounted
#     as a cgroup v1 hierarchy of its own, so the cgroup2 mount holds none
#   - an NFS export on 127.0.0.1, nfs://127.0.0.1/overhead (scripts/nfs-server.sh: rpcbind and
#     nfs-ganesha in user space, NFSv3 and v4; VMs with scratch_via nfs-disk or nfs-mount)
# Everything lives under data/hosts/ (git-ignored):
#   ssh/id_ed25519(.pub)    client key        ssh/known_hosts   sshd and guest host keys
#   ssh/guest_host_ed25519_key(.pub)          the guest's fixed host key
#   sshd/                   config, host key, pid, log        dockerd/  pid, log (if started)
#   image/<hash>/           rootfs/ disk.raw vmlinuz initrd.img;  image/current -> <hash>
#                           (the previous build is kept, older ones removed; 5 GiB free needed to build)
#   nfs/                    export/ (the exported folder), ganesha.conf, .pid, .log, state/,
#                           rpcbind.pid, .log (scripts/nfs-server.sh)
#   secrets/mysql.cnf       the MySQL benchmark's password (sysbench option file, 0600),
#                           random, made once; campaigns copy it where it is used ({file:mysql})
#   local.env               shell-sourceable facts for campaigns and tests
# A second run with an unchanged recipe rebuilds nothing and takes seconds.
# scripts/hosts-down.sh stops what this started and keeps the images.
set -eu
cd "$(dirname "$0")/.."
H=$(pwd)/data/hosts
port=${OVERHEAD_SSH_PORT:-2222}
tag=overhead/bench
alias=overhead-local-vm

say() { printf 'hosts-up: %s\n' "$*"; }
# shellcheck source=scripts/hostlib.sh
. scripts/hostlib.sh
die() { printf 'hosts-up: %s\n' "$*" >&2; exit 1; }
alive() { # alive PIDFILE COMM: the pidfile names a live (not zombie) process called COMM
  [ -s "$1" ] || return 1
  _pid=$(cat "$1")
  [ "$(cat "/proc/$_pid/comm" 2>/dev/null)" = "$2" ] \
    && ! sed 's/.*) //' "/proc/$_pid/stat" 2>/dev/null | grep -q '^Z'
}

[ "$(id -u)" = 0 ] || die "must run as root (it starts sshd and dockerd and runs debootstrap)"
for tool in sshd:/usr/sbin/sshd ssh-keygen:ssh-keygen dockerd:dockerd docker:docker \
            debootstrap:debootstrap mke2fs:mke2fs crun:crun unshare:unshare flock:flock \
            podman:podman pasta:pasta slirp4netns:slirp4netns newuidmap:newuidmap; do
  command -v "${tool#*:}" >/dev/null 2>&1 || die "${tool%%:*} not found: run make debian (scripts/debian-packages.sh)"
done
mkdir -p "$H/ssh" "$H/sshd" "$H/dockerd" "$H/image"
chmod 700 "$H/ssh"
# one hosts-up at a time (tests and users may call it together)
exec 9>"$H/.lock"
flock -w 3600 9 || die "$H/.lock: another hosts-up still holds it"
t_all=$(now)

# --- keys (once) -----------------------------------------------------------------------------
key() { # key FILE COMMENT
  [ -s "$1" ] && [ -s "$1.pub" ] && return 0
  rm -f "$1" "$1.pub"
  ssh-keygen -q -t ed25519 -N '' -C "$2" -f "$1"
  say "generated $1"
}
key "$H/ssh/id_ed25519" overhead-local-client
key "$H/ssh/guest_host_ed25519_key" "$alias"
key "$H/sshd/ssh_host_ed25519_key" overhead-local-sshd
# one file per login (sshd reads it as that user): root's here, the rootless user's below
rm -f "$H/sshd/authorized_keys"
cp "$H/ssh/id_ed25519.pub" "$H/sshd/authorized_keys_root"
chmod 600 "$H/sshd/authorized_keys_root"

# --- known_hosts: the sshd on loopback and the guest (HostKeyAlias overhead-local-vm) --------
{
  printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$H/sshd/ssh_host_ed25519_key.pub")"
  printf '%s %s\n' "$alias" "$(cut -d' ' -f1,2 "$H/ssh/guest_host_ed25519_key.pub")"
} > "$H/ssh/known_hosts.new"
mv "$H/ssh/known_hosts.new" "$H/ssh/known_hosts"

# --- Docker engine: started now (in the background), waited for after the image -------------
docker_up() { timeout 20 docker info >/dev/null 2>&1; }
dpid=$H/dockerd/dockerd.pid
t_docker=$(now)
docker_started=no
start_dockerd() {
  # In a private mount namespace without the cgroup2 mount at /sys/fs/cgroup/unified: on this
  # hybrid cgroup layout crun fails to create containers while it is there.
  # --userland-proxy=false: a published port is reached through iptables NAT (the paper's
  # "Docker NAT" path), not through docker-proxy copying in user space; and no host socket
  # holds the port, so a native server that binds every address (nuttcp) can use it too.
  # dockerd_differs (scripts/hostlib.sh) checks a running dockerd for these same settings.
  rm -f "$dpid"
  # shellcheck disable=SC2016
  setsid -f unshare -m --propagation private sh -c \
    'echo $$ > "$1"; umount /sys/fs/cgroup/unified 2>/dev/null; exec dockerd --add-runtime crun=/usr/bin/crun --userland-proxy=false' \
    sh "$dpid" >> "$H/dockerd/dockerd.log" 2>&1 < /dev/null 9>&-   # not the lock
  docker_started=yes
  say "dockerd: starting (log $H/dockerd/dockerd.log)"
}
if docker_up; then
  # a running dockerd is used only with the settings the campaigns expect: with the userland
  # proxy on, Docker NAT would silently go through docker-proxy
  if alive "$dpid" dockerd; then p=$(cat "$dpid"); whose="started by hosts-up"
  else rm -f "$dpid"; p=$(dockerd_default_pid); whose="not started by hosts-up"; fi
  [ -n "$p" ] || die "dockerd: one answers, but no single dockerd process serving /var/run/docker.sock is seen, so its settings (--userland-proxy=false, crun) cannot be checked: stop it and run hosts-up again"
  differs=$(dockerd_differs "/proc/$p/cmdline" "$(dockerd_config "/proc/$p/cmdline")" \
    "/proc/$p/mountinfo" "$(timeout 20 docker info --format '{{json .Runtimes}}' 2>/dev/null)")
  if [ -z "$differs" ]; then
    say "dockerd: running (pid $p, $whose), settings as hosts-up starts it, left alone"
  elif [ "$whose" = "started by hosts-up" ]; then
    say "dockerd: pid $p (started by hosts-up) differs: $differs; restarting it"
    stop dockerd "$dpid" dockerd 30
    start_dockerd
  else
    die "dockerd: pid $p ($whose) differs: $differs; stop it (or restart it so) and run hosts-up again"
  fi
elif alive "$dpid" dockerd; then
  say "dockerd: pid $(cat "$dpid") not answering yet, waiting"
else
  start_dockerd
fi

# --- sshd ------------------------------------------------------------------------------------
t_sshd=$(now)
cat > "$H/sshd/sshd_config.new" <<EOF
# written by scripts/hosts-up.sh: the local "native" host, root by key only
Port $port
ListenAddress 127.0.0.1
HostKey $H/sshd/ssh_host_ed25519_key
PidFile $H/sshd/sshd.pid
AuthorizedKeysFile $H/sshd/authorized_keys_%u
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
# the checkout may sit under a group- or world-writable folder (/tmp): sshd would then refuse
# the key; authorized_keys_<user> are this folder's own files (mode 600), on loopback only
StrictModes no
AllowTcpForwarding yes
MaxStartups 100:30:200
MaxSessions 100
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
spid=$H/sshd/sshd.pid
if alive "$spid" sshd && cmp -s "$H/sshd/sshd_config.new" "$H/sshd/sshd_config"; then
  rm "$H/sshd/sshd_config.new"
  say "sshd: running on 127.0.0.1:$port (pid $(cat "$spid")), left alone"
else
  if alive "$spid" sshd; then
    say "sshd: configuration changed, restarting pid $(cat "$spid")"
    kill "$(cat "$spid")"
    n=0; while alive "$spid" sshd && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
  fi
  mv "$H/sshd/sshd_config.new" "$H/sshd/sshd_config"
  mkdir -p /run/sshd && chmod 755 /run/sshd
  rm -f "$spid"
  /usr/sbin/sshd -t -f "$H/sshd/sshd_config" || die "sshd: $H/sshd/sshd_config does not pass sshd -t"
  /usr/sbin/sshd -f "$H/sshd/sshd_config" -E "$H/sshd/sshd.log" 9>&-
  n=0; while ! alive "$spid" sshd; do
    [ $n -lt 100 ] || { tail -n 5 "$H/sshd/sshd.log" >&2; die "sshd: did not start (port $port taken?)"; }
    sleep 0.1; n=$((n + 1))
  done
  say "sshd: started on 127.0.0.1:$port (pid $(cat "$spid")) in $(since "$t_sshd")"
fi
# it answers, with the key in known_hosts
ssh -q -F /dev/null -i "$H/ssh/id_ed25519" -o UserKnownHostsFile="$H/ssh/known_hosts" -o StrictHostKeyChecking=yes \
    -o BatchMode=yes -o ConnectTimeout=10 -p "$port" root@127.0.0.1 true \
  || die "sshd: ssh -p $port root@127.0.0.1 failed (see $H/sshd/sshd.log)"

# --- NFS: rpcbind and nfs-ganesha on loopback ---------------------------------------------------
sh scripts/nfs-server.sh up 9>&- || die "nfs: scripts/nfs-server.sh up failed (logs in $H/nfs)"

# --- the image -------------------------------------------------------------------------------
kver=${OVERHEAD_GUEST_KERNEL:-$(find /boot -maxdepth 1 -name 'vmlinuz-*' | sed 's|.*/vmlinuz-||' | sort -V | tail -n 1)}
if [ -z "$kver" ] || [ ! -r "/boot/vmlinuz-$kver" ]; then die "no /boot/vmlinuz-$kver: apt-get install linux-image-amd64"; fi
# the recipe: the build script, the package lists, the kernel, the keys baked into the tree
hash=$({ cat images/debian/build.sh images/debian/packages images/debian/guest-packages
         echo "$kver"; sha256sum "/boot/vmlinuz-$kver" "/boot/initrd.img-$kver" | cut -d' ' -f1
         cat "$H/ssh/id_ed25519.pub" "$H/ssh/guest_host_ed25519_key.pub"; } | sha256sum | cut -c1-16)
dir=$H/image/$hash
t_image=$(now)
if [ -d "$dir" ]; then
  say "image: $hash cached"
else
  # a build writes about 2.7 GiB here (tree and disk image) and the Docker import about 1 GiB;
  # a full disk half-way gives errors far from their cause, so refuse now, saying where
  need_free "$H/image" 5 "the image build (about 2.7 GiB here, and 1 GiB for the Docker import)"
  # the mirror apt uses here (deb822 or one-line sources), unless OVERHEAD_DEBIAN_MIRROR says
  uris=$(sed -n -e 's/^URIs:[[:space:]]*//p' -e 's/^deb[[:space:]]\{1,\}\([^[:space:]]*\)[[:space:]].*/\1/p' \
           /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | tr ' ' '\n' | grep '/debian' || true)
  mirror=${OVERHEAD_DEBIAN_MIRROR:-$(echo "$uris" | grep -v security | head -n 1)}
  mirror=${mirror:-http://deb.debian.org/debian}
  security=$(echo "$uris" | grep security | head -n 1 || true)
  say "image: building $hash (kernel $kver) from $mirror, minutes"
  tmp=$H/image/.build-$hash
  rm -rf "$tmp"
  sh images/debian/build.sh "$tmp" "$mirror" "$security" "$kver" "$H/ssh/id_ed25519.pub" \
    "$H/ssh/guest_host_ed25519_key" || die "image: build failed (logs in $tmp)"
  mv "$tmp" "$dir"   # only a finished build has the final name
  say "image: built $dir in $(since "$t_image")"
fi
ln -sfn "$hash" "$H/image/current.new"
mv -T "$H/image/current.new" "$H/image/current"
# older builds of this checkout (another recipe or keys): keep the newest one, remove the rest
# shellcheck disable=SC2010,SC2012  # the names are hex hashes
ls -1dt "$H/image"/[0-9a-f]*[0-9a-f] 2>/dev/null | grep -v "/$hash\$" | tail -n +2 | while read -r old; do
  say "image: removing $old (an older build, $(du -sh "$old" | cut -f1))"
  rm -rf "$old"
done

# --- Docker: wait for the engine, import the tree --------------------------------------------
n=0
until docker_up; do
  if [ "$docker_started" = yes ] && ! alive "$dpid" dockerd; then
    tail -n 10 "$H/dockerd/dockerd.log" >&2; die "dockerd: exited (log $H/dockerd/dockerd.log)"
  fi
  [ $n -lt 60 ] || { tail -n 10 "$H/dockerd/dockerd.log" >&2; die "dockerd: no answer to docker info within 60 s"; }
  sleep 1; n=$((n + 1))
done
[ "$docker_started" = no ] || say "dockerd: started (pid $(cat "$dpid")), answering $(since "$t_docker") after its start"
runtimes=$(docker info --format '{{json .Runtimes}}')
case $runtimes in
  *'"crun"'*) ;;
  *) say "warning: this dockerd does not know runtime crun (runtime=crun environments fail); restart it with --add-runtime crun=/usr/bin/crun" ;;
esac
t_import=$(now)
if docker image inspect "$tag:$hash" >/dev/null 2>&1; then
  say "docker image: $tag:$hash present"
else
  [ -d "$dir/rootfs" ] || die "docker image: $dir/rootfs was removed; rm -rf $dir and run hosts-up again"
  need_free "$(docker info --format '{{.DockerRootDir}}')" 2 "the Docker import of $dir/rootfs"
  # the guest's kernel modules and /boot stay out of the container image
  tar -C "$dir/rootfs" --numeric-owner -cf - --exclude=./usr/lib/modules --exclude=./boot \
      --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' . \
    | docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        -c 'CMD ["/bin/bash"]' -m "overhead: images/debian recipe $hash" - "$tag:$hash" >/dev/null
  say "docker image: imported $tag:$hash in $(since "$t_import")"
fi
docker tag "$tag:$hash" "$tag:latest"
# Each checkout's keys make its own image, so every clone leaves one behind (about 1 GiB each):
# keep this one and the two newest others (another checkout may be using them), remove older
# ones that no container uses (docker rmi without -f refuses those, and that is left alone).
docker images "$tag" --format '{{.CreatedAt}}	{{.Tag}}' | sort -r | cut -f2 \
  | grep -v -x -e "$hash" -e latest | tail -n +3 | while read -r old; do
  if docker rmi "$tag:$old" >/dev/null 2>&1; then say "docker image: removed $tag:$old (an older build)"; fi
done

# --- cgroups: crun on a hybrid layout ----------------------------------------------------------
# crun refuses a hybrid layout whose cgroup2 mount (/sys/fs/cgroup/unified) holds a controller
# ("cgroups in hybrid mode not supported"). The controller there is one no v1 hierarchy has
# mounted (hugetlb here): mounted as a v1 hierarchy of its own, it leaves the cgroup2 mount, and
# crun runs under Podman rootful and rootless (dockerd's own namespace hides the cgroup2 mount).
# hosts-down leaves it mounted: a hierarchy with cgroups in it cannot be given back to cgroup2.
u=/sys/fs/cgroup/unified
if [ -r "$u/cgroup.controllers" ] && [ -n "$(cat "$u/cgroup.controllers")" ] \
   && [ "$(stat -f -c %T /sys/fs/cgroup)" = tmpfs ]; then
  # shellcheck disable=SC2013  # the file is one line of controller names
  for c in $(cat "$u/cgroup.controllers"); do
    mkdir -p "/sys/fs/cgroup/$c"
    mount -t cgroup -o "$c" cgroup "/sys/fs/cgroup/$c" \
      || die "cgroups: $u holds controller $c (crun refuses that) and mounting it as a v1 hierarchy at /sys/fs/cgroup/$c failed"
    say "cgroups: controller $c moved from $u to a v1 hierarchy at /sys/fs/cgroup/$c (crun refuses a cgroup2 mount holding a controller)"
  done
fi

# --- Podman: the rootless user, the image in root's and the user's stores ----------------------
rl=overhead-rootless
t_podman=$(now)
if ! id -u "$rl" >/dev/null 2>&1; then
  useradd --create-home --shell /bin/sh --comment "overhead rootless containers" "$rl"
  say "podman: made user $rl"
fi
# no password, but not locked either: sshd (UsePAM no) refuses a locked account's key login
[ "$(getent shadow "$rl" | cut -d: -f2)" = '*' ] || usermod -p '*' "$rl"
# its login: the same client key, by the private sshd (which reads the file as that user; the
# folders above it must let the user through, as /work or /tmp do)
cp "$H/ssh/id_ed25519.pub" "$H/sshd/authorized_keys_$rl"
chown "$rl" "$H/sshd/authorized_keys_$rl"
chmod 600 "$H/sshd/authorized_keys_$rl"
# subordinate ids for its user namespace (useradd gives some when /etc/subuid exists; not always)
grep -q "^$rl:" /etc/subuid 2>/dev/null || usermod --add-subuids 100000-165535 "$rl"
grep -q "^$rl:" /etc/subgid 2>/dev/null || usermod --add-subgids 100000-165535 "$rl"
rl_home=$(getent passwd "$rl" | cut -d: -f6)
# its default store: native overlay in the user namespace (Podman 4.3 would pick vfs, which
# copies the whole image for every container); a store made with another driver is reset
rl_conf=$rl_home/.config/containers/storage.conf
if [ ! -s "$rl_conf" ]; then
  runuser -u "$rl" -- sh -c 'mkdir -p ~/.config/containers && printf "[storage]\ndriver = \"overlay\"\n" > ~/.config/containers/storage.conf'
  (cd / && runuser -u "$rl" -- podman system reset -f >/dev/null 2>&1) || true
fi
# Podman's default limits for a container (1048576 open files, 4194304 processes) exceed what a
# host without CAP_SYS_RESOURCE (this one, a container itself) may grant, and every `podman run`
# fails ("setrlimit RLIMIT_NOFILE: Operation not permitted"): the defaults become the host's hard
# limits (processes at most 32768, the limit Podman 4.3 sets on itself before it starts the
# runtime). Environments give theirs explicitly; this is for a plain `podman run` (start-up cost)
# shellcheck disable=SC2046  # two numbers, split on purpose
set -- $(awk '/^Max open files/ { f = $5 } /^Max processes/ { p = $4 } END { print f, p }' /proc/self/limits)
[ "$1" = unlimited ] && set -- 1048576 "$2"
if [ "$2" = unlimited ] || [ "$2" -gt 32768 ]; then set -- "$1" 32768; fi
mkdir -p /etc/containers/containers.conf.d
printf '# written by overhead scripts/hosts-up.sh: the host'"'"'s hard limits as Podman'"'"'s defaults\n[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=%s:%s"]\n' \
  "$1" "$1" "$2" "$2" > /etc/containers/containers.conf.d/overhead.conf
# podman_import USER: the tree into USER's Podman store as $tag:$hash and :latest
podman_import() {
  if (cd / && runuser -u "$1" -- podman image exists "$tag:$hash"); then
    say "podman image ($1): $tag:$hash present"
  else
    _t=$(now)
    [ -d "$dir/rootfs" ] || die "podman image: $dir/rootfs was removed; rm -rf $dir and run hosts-up again"
    tar -C "$dir/rootfs" --numeric-owner -cf - --exclude=./usr/lib/modules --exclude=./boot \
        --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' . \
      | (cd / && runuser -u "$1" -- podman import -q \
          -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
          -c 'CMD ["/bin/bash"]' -m "overhead: images/debian recipe $hash" - "$tag:$hash") >/dev/null \
      || die "podman image ($1): import of $dir/rootfs failed"
    say "podman image ($1): imported $tag:$hash in $(since "$_t")"
  fi
  (cd / && runuser -u "$1" -- podman tag "$tag:$hash" "$tag:latest")
  # older builds of this image in that store, unless a container uses them
  (cd / && runuser -u "$1" -- podman images --format '{{.Tag}}' "$tag") | grep -v -x -e "$hash" -e latest \
    | while read -r old; do (cd / && runuser -u "$1" -- podman rmi "$tag:$old" >/dev/null 2>&1) || true; done
}
podman_import root
podman_import "$rl"
say "podman: ready in $(since "$t_podman") (rootless user $rl, $(grep "^$rl:" /etc/subuid | head -n 1))"

# --- secrets: the MySQL benchmark user's password, random, never in the repository ----------
if [ ! -s "$H/secrets/mysql.cnf" ]; then
  (umask 077 && mkdir -p "$H/secrets" \
    && printf 'mysql-password=%s\n' "$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')" \
       > "$H/secrets/mysql.cnf.new" && mv "$H/secrets/mysql.cnf.new" "$H/secrets/mysql.cnf")
  say "secrets: made $H/secrets/mysql.cnf"
fi

# --- facts for campaigns and tests -----------------------------------------------------------
rt=$(printf '%s' "$runtimes" | tr -d '{}' | tr ',' '\n' | sed -n 's/^"\([^"]*\)":.*/\1/p' | tr '\n' ',' | sed 's/,$//')
cat > "$H/local.env.new" <<EOF
# written by scripts/hosts-up.sh
OVERHEAD_HOSTS='$H'
OVERHEAD_SSH_PORT=$port
OVERHEAD_SSH_KEY='$H/ssh/id_ed25519'
OVERHEAD_KNOWN_HOSTS='$H/ssh/known_hosts'
OVERHEAD_GUEST_ALIAS=$alias
OVERHEAD_IMAGE_HASH=$hash
OVERHEAD_IMAGE_DIR='$dir'
OVERHEAD_GUEST_KERNEL=$kver
OVERHEAD_DOCKER_IMAGE=$tag:$hash
OVERHEAD_DOCKER_RUNTIMES=$rt
OVERHEAD_ROOTLESS_USER=$rl
OVERHEAD_NFS_URL=nfs://127.0.0.1/overhead
OVERHEAD_NFS_EXPORT='$H/nfs/export'
EOF
mv "$H/local.env.new" "$H/local.env"
say "ready in $(since "$t_all"): ssh -i $H/ssh/id_ed25519 -o UserKnownHostsFile=$H/ssh/known_hosts -p $port root@127.0.0.1; docker image $tag:latest; VM image $dir; NFS nfs://127.0.0.1/overhead"
