#!/bin/sh
# vm-boot: a QEMU guest's boot time, from power-on (QEMU started) to its SSH server's banner on
# a forwarded host port, timed by hyperfine (every run kept, --export-json).
#     sh runners/vm-boot.sh OUTDIR runs=3 port=10200 accel=auto memory=1024 vcpus=2 timeout=120
# Parameters: runs (>= 1), image (the folder scripts/hosts-up.sh makes: disk.raw, vmlinuz,
# initrd.img; default data/hosts/image/current beside these runners), memory (MiB), vcpus,
# accel=auto|kvm|tcg, port (the host port on 127.0.0.1 forwarded to the guest's 22; default
# 10210, away from the campaign VM's 10022; nothing may listen there), timeout (seconds one
# boot may take to show the banner).
#
# The machine is the campaign VM's (overhead.environments.qemu.boot_command, untuned): the
# host's kernel and initrd with root=/dev/vda, the image as a virtio disk (snapshot=on: writes go
# to a temporary overlay, the image stays pristine), QEMU's user-mode network on virtio-net with
# hostfwd=tcp:127.0.0.1:PORT-:22, no display, the serial console to a file, -no-reboot and
# panic=1. Each timed run is `sh boot.sh ...` (kept in the trial): it starts QEMU, polls the
# port (a fresh connection every ~50 ms, 0.5 s per attempt) until the guest's sshd sends
# "SSH-", then stops QEMU (TERM, KILL 5 s later) and waits for it; so a run's time is power-on
# to banner plus QEMU's exit (and sh's and python3's start, some tens of ms). A boot without a
# banner within timeout seconds, or a QEMU that exits first, fails the run and the trial.
#
# accel: kvm and auto first boot the image under -accel kvm alone with a probe as init, at most
# 25 s (as qemu.probe_command does; where KVM is present but guests hang, a PVM host, it times
# out). auto then runs under KVM if the probe's guest came up, else under TCG; kvm fails without
# it; tcg probes nothing. p_accel records the accelerator that ran (never kvm under TCG), and so
# does the hyperfine command name, "qemu boot to ssh banner (accel=<accel>)"; accel_requested
# and accel_reason say what was asked and why.
#
# Bounds: every QEMU runs under `timeout` (the probe 25 s, a boot timeout + 30 s), so none
# outlives a killed runner; the runner's exit also stops a QEMU whose pid file it wrote.
# The trial: output (hyperfine's JSON), stderr (notes, hyperfine's text report), meta, boot.sh,
# boots (one line per boot: seconds to the banner as the waiter saw it, and the banner),
# serial.log (the last boot's console), probe.log (the probe's console, when one ran).
# meta beyond the contract: accel_requested, accel_reason, image_dir (resolved), guest_kernel,
# hyperfine_version, network, qemu_command (one boot's QEMU command line).
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
IMAGE_DEFAULT="$(cd "$(dirname "$0")/.." && pwd)/data/hosts/image/current"
rn_declare runs=3 image="$IMAGE_DEFAULT" memory=1024 vcpus=2 accel=auto port=10210 timeout=120
rn_args "$@"
rn_int runs; rn_int memory; rn_int vcpus; rn_int timeout
[ "$P_runs" -ge 1 ] || rn_die "parameter runs=$P_runs: must be at least 1"
[ "$P_memory" -ge 128 ] || rn_die "parameter memory=$P_memory: the guest needs at least 128 MiB"
[ "$P_vcpus" -ge 1 ] || rn_die "parameter vcpus=$P_vcpus: must be at least 1"
[ "$P_timeout" -ge 1 ] || rn_die "parameter timeout=$P_timeout: must be at least 1 second"
rn_oneof accel auto kvm tcg
rn_int port
{ [ "$P_port" -ge 1 ] && [ "$P_port" -le 65535 ]; } || rn_die "parameter port=$P_port: not a TCP port"
rn_require hyperfine qemu-system-x86_64 python3 timeout
IMG=$(readlink -f "$P_image" 2>/dev/null) || IMG=""
for _f in disk.raw vmlinuz initrd.img; do
    { [ -n "$IMG" ] && [ -r "$IMG/$_f" ]; } || rn_die "parameter image=$P_image: no readable $_f there (make hosts-up builds the image)"
done
case "$IMG$RN_TMP" in *[[:space:]]*) rn_die "parameter image=$P_image or the trial directory: no white space allowed in these paths" ;; esac
if command -v ss >/dev/null 2>&1; then
    _held=$(ss -Htlnp "sport = :$P_port" 2>/dev/null || true)
    [ -z "$_held" ] || rn_die "parameter port=$P_port: already in use: $_held"
fi

QEMU=qemu-system-x86_64
PROBE_SECONDS=25
STATE=$(mktemp -d "${TMPDIR:-/var/tmp}/overhead-vm-boot.XXXXXX")
note() { echo "vm-boot: $*" >> "$RN_TMP/stderr"; }

# stop_qemu: a QEMU this trial started (pid file in STATE, checked by name) is stopped
stop_qemu() {
    _pid=$(cat "$STATE/qemu.pid" 2>/dev/null) || return 0
    _alive() { case $(cat /proc/"$_pid"/comm 2>/dev/null) in qemu-system*) ! grep -q '^State:.*Z' /proc/"$_pid"/status 2>/dev/null ;; *) return 1 ;; esac; }
    _alive || return 0
    kill "$_pid" 2>/dev/null
    _n=0; while _alive && [ $_n -lt 50 ]; do sleep 0.1; _n=$((_n + 1)); done
    if _alive; then kill -9 "$_pid" 2>/dev/null; fi
    return 0
}
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    stop_qemu
    rm -rf "$STATE"
    return 0
}
trap cleanup EXIT

# --- the accelerator -------------------------------------------------------------------------
REQUESTED=$P_accel
if [ "$P_accel" = tcg ]; then
    ACCEL=tcg; REASON="tcg requested"
else
    note "accel: probing KVM (a boot with the probe as init, at most $PROBE_SECONDS s)"
    set +e
    timeout -k 5 "$PROBE_SECONDS" "$QEMU" -accel kvm -m 256 -nodefaults -no-reboot -display none \
        -serial stdio -monitor none \
        -append "root=/dev/vda ro console=ttyS0 panic=1 init=/usr/local/sbin/overhead-probe" \
        -kernel "$IMG/vmlinuz" -initrd "$IMG/initrd.img" \
        -drive "file=$IMG/disk.raw,format=raw,if=virtio,snapshot=on" \
        < /dev/null > "$RN_TMP/probe.log" 2>&1
    _probe=$?
    set -e
    if grep -q OVERHEAD-GUEST-UP "$RN_TMP/probe.log"; then
        ACCEL=kvm; REASON="$P_accel requested, a guest booted under KVM"
    elif [ "$P_accel" = kvm ]; then
        rn_die "parameter accel=kvm: no guest booted under KVM on this host (probe exit $_probe: $( [ -c /dev/kvm ] && echo 'guests hang or fail under it' || echo 'no /dev/kvm')); use accel=auto or tcg"
    else
        ACCEL=tcg
        if [ -c /dev/kvm ]; then
            REASON="auto: /dev/kvm is there but the probe's guest did not come up under KVM in $PROBE_SECONDS s (exit $_probe), running under TCG (emulation)"
        else
            REASON="auto: no /dev/kvm, running under TCG (emulation)"
        fi
    fi
fi
P_accel=$ACCEL   # p_accel is the accelerator that runs the guest
note "accel: $ACCEL ($REASON)"

# --- one boot, the command hyperfine times ---------------------------------------------------
cat > "$RN_TMP/boot.sh" <<'EOF'
#!/bin/sh
# vm-boot's timed command: QEMU power-on to the SSH banner on 127.0.0.1:PORT, then QEMU stops.
#     sh boot.sh ACCEL MEMORY VCPUS PORT TIMEOUT IMAGE_DIR STATE_DIR LOG
set -u
accel=$1 memory=$2 vcpus=$3 port=$4 limit=$5 img=$6 state=$7 log=$8
q=""
stop() {  # TERM to timeout, which passes it on to QEMU and sends KILL 5 s later
    if [ -n "$q" ]; then kill "$q" 2>/dev/null; wait "$q" 2>/dev/null; q=""; fi
    return 0
}
trap stop EXIT
trap 'exit 143' INT TERM HUP
rm -f "$state/qemu.pid"
set -- qemu-system-x86_64 -name vm-boot,debug-threads=on -nodefaults \
    -no-reboot -accel "$accel" -m "$memory" -smp "$vcpus" \
    -netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$port-:22" -device virtio-net-pci,netdev=n0 \
    -display none -monitor none \
    -kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=1" \
    -drive "file=$img/disk.raw,format=raw,if=virtio,snapshot=on" \
    -serial "file:$state/serial.log" -pidfile "$state/qemu.pid"
# the command line as run, for the trial's meta (a word with spaces quoted)
for a; do case $a in *" "*) printf "'%s' " "$a" ;; *) printf '%s ' "$a" ;; esac; done \
    > "$state/qemu_command"
timeout -k 5 $((limit + 30)) "$@" < /dev/null > "$state/qemu.out" 2>&1 &
q=$!
python3 - "$port" "$limit" "$q" "$log" "$accel" <<'PY'
import socket, sys, time
port, limit, pid, log, accel = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
start = time.monotonic()

def running():
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False

def record(text):
    with open(log, "a") as f:
        f.write(f"accel={accel} {text}\n")

while time.monotonic() - start < limit:
    if not running():
        record(f"QEMU exited after {time.monotonic() - start:.3f} s, before any banner")
        sys.exit(2)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.settimeout(0.5)
            data = s.recv(256)
        if data.startswith(b"SSH-"):
            banner = data.split(b"\r\n")[0].decode(errors="replace")
            record(f"banner after {time.monotonic() - start:.3f} s: {banner}")
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.05)
record(f"no banner on 127.0.0.1:{port} within {limit:g} s")
sys.exit(1)
PY
st=$?
stop
if [ "$st" -ne 0 ]; then
    echo "boot.sh: no SSH banner (status $st); QEMU said: $(tail -c 2000 "$state/qemu.out")" >&2
    tail -n 20 "$state/serial.log" >&2 2>/dev/null
fi
exit "$st"
EOF

w() { rn_quote "$1"; }   # a word of hyperfine's command string (it splits it as a shell would)
RUN="sh $(w "$RN_TMP/boot.sh") $ACCEL $P_memory $P_vcpus $P_port $P_timeout $(w "$IMG") $(w "$STATE") $(w "$STATE/boots")"
set -- hyperfine --style basic --runs "$P_runs" --warmup 0 -N \
    --command-name "qemu boot to ssh banner (accel=$ACCEL)" --export-json "$RN_TMP/output" -- "$RUN"
rn_meta accel_requested "$REQUESTED"
rn_meta accel_reason "$REASON"
rn_meta image_dir "$IMG"
rn_meta guest_kernel "$(cat "$IMG/kernel-version" 2>/dev/null || echo unavailable)"
rn_meta hyperfine_version "$(hyperfine --version)"
rn_meta network "user-mode (slirp) virtio-net, host 127.0.0.1:$P_port forwarded to the guest's 22"
rn_begin vm-boot "$QEMU" hyperfine "$("$QEMU" --version | head -n 1)" -- "$@"
set +e
"$@" < /dev/null >> "$RN_TMP/stderr" 2>&1
RN_STATUS=$?
set -e
stop_qemu
# one boot's QEMU command line, as boot.sh ran it
rn_meta qemu_command "$(cat "$STATE/qemu_command" 2>/dev/null || echo unavailable)"
cp "$STATE/serial.log" "$RN_TMP/serial.log" 2>/dev/null || true
if [ -e "$STATE/boots" ]; then cp "$STATE/boots" "$RN_TMP/boots"; else : > "$RN_TMP/boots"; fi
rn_finish "$RN_STATUS"
