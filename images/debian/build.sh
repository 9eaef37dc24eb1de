#!/bin/sh
# Build the local hosts' Debian bookworm image into OUT (as root; scripts/hosts-up.sh calls it):
#   OUT/rootfs/      debootstrap tree (minbase) with the tools (packages) and the guest's
#                    packages (guest-packages) installed, set up to boot as a QEMU guest
#   OUT/disk.raw     ext4 image of the tree (mke2fs -d), the VM's disk (root=/dev/vda)
#   OUT/vmlinuz, OUT/initrd.img   the host's Debian kernel KVER and its initrd
# The same tree becomes the Docker image (docker import, without kernel modules).
# This file's text, the two package lists, the kernel and the two public keys are the recipe
# that scripts/hosts-up.sh hashes: change any and the image is rebuilt under a new hash.
#
# usage: build.sh OUT MIRROR SECURITY_MIRROR KVER CLIENT_PUBKEY GUEST_HOST_KEY
#   SECURITY_MIRROR may be empty; GUEST_HOST_KEY is the private key (its .pub beside it).
set -eu
[ $# -eq 6 ] || { echo "usage: $0 OUT MIRROR SECURITY_MIRROR KVER CLIENT_PUBKEY GUEST_HOST_KEY" >&2; exit 2; }
out=$1 mirror=$2 security=$3 kver=$4 client_pub=$5 guest_key=$6
here=$(cd "$(dirname "$0")" && pwd)
tree=$out/rootfs
list() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$@" | tr -s ' \n' '  '; }
packages=$(list "$here/packages" "$here/guest-packages")

for f in "/boot/vmlinuz-$kver" "/boot/initrd.img-$kver" "/lib/modules/$kver/modules.dep" \
         "$client_pub" "$guest_key" "$guest_key.pub"; do
  [ -r "$f" ] || { echo "build.sh: $f: missing (kernel $kver: apt-get install linux-image-amd64)" >&2; exit 1; }
done
mkdir -p "$out"

echo "build.sh: debootstrap bookworm (minbase) from $mirror"
debootstrap --variant=minbase --components=main,contrib,non-free bookworm "$tree" "$mirror" \
  > "$out/debootstrap.log" 2>&1 || { tail -n 20 "$out/debootstrap.log" >&2; exit 1; }

{
  echo "deb $mirror bookworm main contrib non-free"
  echo "deb $mirror bookworm-updates main contrib non-free"
  [ -z "$security" ] || echo "deb $security bookworm-security main contrib non-free"
} > "$tree/etc/apt/sources.list"
# Packages' own daemons must not start in the chroot (exit 101 = action forbidden); kept in the
# image: the benchmarks start their own servers.
printf '#!/bin/sh\nexit 101\n' > "$tree/usr/sbin/policy-rc.d"
chmod 755 "$tree/usr/sbin/policy-rc.d"

echo "build.sh: apt-get install $packages"
# In a private mount namespace: /proc mounted into the tree goes away with it, even on failure.
# shellcheck disable=SC2016,SC2086
unshare -m --propagation private sh -eu -c '
  tree=$1; shift
  mount -t proc proc "$tree/proc"
  export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
  chroot "$tree" apt-get update -q
  chroot "$tree" apt-get install -y -q --no-install-recommends "$@"
  chroot "$tree" systemctl enable systemd-networkd.service
  chroot "$tree" systemctl enable systemd-network-generator.service
  chroot "$tree" apt-get clean
' sh "$tree" $packages > "$out/install.log" 2>&1 || { tail -n 30 "$out/install.log" >&2; exit 1; }
rm -rf "$tree"/var/lib/apt/lists/* "$tree"/var/cache/apt/*.bin

echo "build.sh: guest setup (ssh, network, probe, kernel $kver modules)"
echo overhead-vm > "$tree/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\toverhead-vm\n' > "$tree/etc/hosts"
echo 'nameserver 10.0.2.3' > "$tree/etc/resolv.conf"   # QEMU user networking's DNS
printf '/dev/vda\t/\text4\tdefaults\t0\t0\n' > "$tree/etc/fstab"
# DHCP on the first NIC (QEMU user networking hands out 10.0.2.15), unless the kernel command
# line has an ip= (a guest on a bridge through a tap: its static address, which
# systemd-network-generator turns into /run/systemd/network/90-eth0.network)
cat > "$tree/etc/systemd/network/20-overhead.network" <<'EOF'
[Match]
Type=ether
KernelCommandLine=!ip

[Network]
DHCP=ipv4
EOF
# Masked: the benchmarks start their own servers (nginx and PostgreSQL included: a booted guest
# ran both, idle beside every trial); timers would disturb measurements; nothing waits for
# "network online" (it can hold the boot for two minutes). Nor do the boot-time jobs that cost
# seconds under TCG and do nothing here: e2scrub_reap (no e2scrub snapshots), the gettys of
# tty1-6 (no display: the serial console keeps its getty) and rpcbind (the guest mounts NFS
# 4.0, which does not use it).
for unit in redis-server.service netperf.service mariadb.service sysstat.service systemd-networkd-wait-online.service \
            nginx.service postgresql.service postgresql@.service e2scrub_reap.service \
            getty@.service getty-static.service rpcbind.service rpcbind.socket \
            apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer; do
  ln -sf /dev/null "$tree/etc/systemd/system/$unit"
done
# no display manager: boot to multi-user (graphical.target adds nothing but waits for it)
ln -sf /lib/systemd/system/multi-user.target "$tree/etc/systemd/system/default.target"
[ -e "$tree/etc/systemd/system/multi-user.target.wants/ssh.service" ] \
  || { echo "build.sh: ssh.service is not enabled in the tree" >&2; exit 1; }

# SSH: only the fixed guest host key (known_hosts names it overhead-local-vm), root by key only
rm -f "$tree"/etc/ssh/ssh_host_*
install -m 600 "$guest_key" "$tree/etc/ssh/ssh_host_ed25519_key"
install -m 644 "$guest_key.pub" "$tree/etc/ssh/ssh_host_ed25519_key.pub"
cat > "$tree/etc/ssh/sshd_config.d/overhead.conf" <<'EOF'
HostKey /etc/ssh/ssh_host_ed25519_key
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
AllowTcpForwarding yes
UseDNS no
EOF
install -d -m 700 "$tree/root/.ssh"
install -m 600 "$client_pub" "$tree/root/.ssh/authorized_keys"

# init= of the accelerator probe: a line on the console, then power off at once
cat > "$tree/usr/local/sbin/overhead-probe" <<'EOF'
#!/bin/sh
# Accelerator probe (init=/usr/local/sbin/overhead-probe): the guest reached userspace.
mount -t proc proc /proc 2>/dev/null
echo OVERHEAD-GUEST-UP > /dev/console
echo o > /proc/sysrq-trigger
sleep 30
EOF
chmod 755 "$tree/usr/local/sbin/overhead-probe"

# The host's Debian kernel boots the guest; its modules (virtio_net...) go into the tree
mkdir -p "$tree/usr/lib/modules"
cp -a "/lib/modules/$kver" "$tree/usr/lib/modules/"
cp "/boot/vmlinuz-$kver" "$out/vmlinuz"
cp "/boot/initrd.img-$kver" "$out/initrd.img"
echo "$kver" > "$out/kernel-version"

# The disk: tree size + 30% + 256 MB of room for the benchmarks' scratch files
size=$(du -sm "$tree" | cut -f1)
size=$((size + size * 3 / 10 + 1280))  # room for fio's files and MariaDB's tables
echo "build.sh: disk.raw (ext4, ${size} MB)"
mke2fs -q -t ext4 -L overhead-root -d "$tree" "$out/disk.raw" "${size}M"
