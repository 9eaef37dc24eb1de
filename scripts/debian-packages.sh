#!/bin/sh
# Install the Debian packages that tests, runners and the local hosts (make hosts-up: sshd,
# dockerd with crun, debootstrap, QEMU, the guest's kernel) need (as root on Debian bookworm).
# Enables the non-free component (netperf lives there), runs apt-get update, then installs.
# Skips everything when all packages are already present, so a warm `make test` stays fast.
set -eu
PACKAGES="python3 python3-venv python3-pip git make
fio sysbench redis-server redis-tools netperf nuttcp hpcc pixz xz-utils time hyperfine
iperf3 sockperf qperf wrk gcc libc6-dev libluajit-5.1-dev luajit libssl-dev
postgresql-15 hdparm apache2-utils linux-perf sysstat dstat procps openmpi-bin shellcheck
mariadb-server mariadb-client
docker.io crun debootstrap qemu-system-x86 qemu-utils openssh-server openssh-client
linux-image-amd64 e2fsprogs iproute2 iptables util-linux socat stress-ng
nfs-ganesha nfs-ganesha-vfs rpcbind qemu-block-extra nginx xfsprogs btrfs-progs
podman runc conmon netavark aardvark-dns slirp4netns passt uidmap fuse-overlayfs catatonit lxc
chromium fonts-dejavu-core"

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && { echo "debian packages: all present"; exit 0; }
echo "debian packages: installing$missing"
if [ "$(id -u)" != 0 ]; then
  echo "need root to install:$missing" >&2; exit 1
fi
src=/etc/apt/sources.list.d/debian.sources
if [ -f "$src" ] && ! grep -q 'non-free' "$src"; then
  sed -i 's/^Components: main$/Components: main contrib non-free/' "$src"
elif [ -f /etc/apt/sources.list ] && ! grep -q 'non-free' /etc/apt/sources.list; then
  sed -i 's/^\(deb .* main\)$/\1 contrib non-free/' /etc/apt/sources.list
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# Keep the packages' own services (mariadb, redis, postgresql) from starting: the tests start
# private instances on loopback or unix sockets and stop them again. policy-rc.d exit 101 =
# "action forbidden"; a policy file already present is left alone.
policy=/usr/sbin/policy-rc.d
if [ ! -e $policy ]; then
  printf '#!/bin/sh\nexit 101\n' > $policy && chmod +x $policy
  trap 'rm -f $policy' EXIT
fi
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
