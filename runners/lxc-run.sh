#!/bin/sh
# lxc-run: start-up cost of an LXC application container, `lxc-execute -n NAME -f CONFIG -- true`,
# timed by hyperfine (every run kept, --export-json): LXC's counterpart of `docker run --rm IMAGE
# true` and of oci-run's `<runtime> run`.
#     sh runners/lxc-run.sh OUTDIR tree=/path/to/rootfs runs=10 warmup=1
# Parameters: tree (the container's root file system: the image tree make hosts-up builds,
# data/hosts/image/current/rootfs; it is the read-only lower layer of an overlay and never
# written), runs (>= 2), warmup, process (the command run in the container; default true).
#
# The container: LXC 5.0's common configuration (namespaces mount, pid, uts, ipc, net, cgroup;
# its default seccomp and capability drops), no network but a loopback (lxc.net.0.type = empty,
# as oci-run's runtime spec), its root an overlay over the tree with the upper layer in a scratch
# folder of the trial's own (removed at the end), its state there too (lxc-execute -P: nothing
# in /var/lib/lxc). Each timed run is a whole lifecycle: create the namespaces and cgroups, mount
# the overlay, run the process under LXC's init, tear down.
#
# The trial: output (hyperfine's JSON), stderr (hyperfine's text report), meta, config (the
# container's configuration). meta beyond the contract: tree. tool is lxc-execute, tool_version
# LXC's version; the hyperfine command name is "lxc-execute -- <process>".
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare tree= runs=10 warmup=1 process=true
rn_args "$@"
rn_int runs; rn_int warmup
[ "$P_runs" -ge 2 ] || rn_die "runs must be at least 2 (hyperfine's minimum)"
[ -n "$P_tree" ] || rn_die "parameter tree is empty (the image tree: data/hosts/image/current/rootfs)"
[ -n "$P_process" ] || rn_die "parameter process is empty"
rn_require hyperfine lxc-execute
if [ ! -d "$P_tree/usr" ] || [ ! -d "$P_tree/etc" ]; then
    rn_die "parameter tree=$P_tree: not a root file system (no usr/ and etc/ in it)"
fi

NAME=overhead-lxcrun-$$
SCRATCH=$(mktemp -d /var/tmp/overhead-lxc-run.XXXXXX)
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    lxc-stop -k -n "$NAME" -P "$SCRATCH" >/dev/null 2>&1 || true
    rm -rf "$SCRATCH"
}
trap cleanup EXIT
mkdir "$SCRATCH/upper"
cat > "$RN_TMP/config" <<EOF
lxc.uts.name = $NAME
lxc.rootfs.path = overlay:$P_tree:$SCRATCH/upper
lxc.include = /usr/share/lxc/config/common.conf
lxc.arch = x86_64
lxc.net.0.type = empty
lxc.apparmor.profile = unconfined
EOF
rn_meta tree "$P_tree"
# the process as sh would split it, passed to lxc-execute as words (hyperfine -N splits likewise)
# named without the trial's own paths, so that every trial's runs carry the same name
set -- hyperfine --style basic --runs "$P_runs" --warmup "$P_warmup" -N \
    --command-name "lxc-execute -- $P_process" --export-json "$RN_TMP/output" -- \
    "lxc-execute -n $NAME -P $SCRATCH -f $RN_TMP/config -- $P_process"
rn_begin lxc-run lxc-execute hyperfine "$(lxc-execute --version 2>&1 | head -n 1)" -- "$@"
set +e
"$@" >> "$RN_TMP/stderr" 2>&1
RN_STATUS=$?
set -e
rn_finish "$RN_STATUS"
