#!/bin/sh
# oci-run: start-up cost of one OCI container, `<runtime> run <id>` of a bundle, timed by
# hyperfine (every run kept, --export-json), with Docker's default seccomp profile or none.
#     sh runners/oci-run.sh OUTDIR runtime=crun seccomp=default runs=50 warmup=3
# Parameters: runtime=crun|runc, seccomp=default|none, runs (>= 1), warmup, image (a Docker
# image: the container's root file system), process (the container's command line, split into
# words as sh would; default true).
#
# The bundle:
#   rootfs       the image's file system (`docker export` of a created container), made once per
#                image id under /var/tmp/overhead-oci/<image id>/rootfs and shared read-only
#   config.json  `<runtime> spec` (the runtime's own default: namespaces pid, network, ipc, uts,
#                mount; no seccomp) with terminal false, process.args from process=, an absolute
#                read-only root and hostname overhead-oci; seccomp=default adds the linux.seccomp
#                that Docker itself wrote into the OCI config of a container it ran just now
#                (runc, the image, `sleep`), read from containerd's bundle of that container;
#                seccomp=none is the same config without linux.seccomp.
# Each timed run is `<runtime> run --bundle B <id>`: create, start, wait, delete (both runtimes
# delete a container whose run has ended; an untimed first run checks that nothing is left).
#
# cgroups: crun 1.8 refuses a hybrid layout whose cgroup2 mount (/sys/fs/cgroup/unified) has a
# controller ("cgroups in hybrid mode not supported"). Where the mounts show that layout (and
# crun, when installed, confirms it by refusing), every run of either runtime happens in a
# private mount namespace without that mount: `unshare -m --propagation private` around
# hyperfine, so crun and runc are measured under the same conditions.
#
# The trial: output (hyperfine's JSON), stderr (preparation notes, hyperfine's text report),
# meta, config.json (the bundle's) and, for seccomp=default, docker-config.json (the captured
# config). meta beyond the contract: p_cgroup (unified, legacy, hybrid, hybrid-without-unified:
# the cgroup layout the runs saw), image_id, rootfs, rootfs_cached, docker_version,
# hyperfine_version, libseccomp_version, seccomp_source, seccomp_syscalls,
# seccomp_default_action. tool is the runtime, tool_version its --version; the hyperfine
# command name is "<runtime> run (seccomp=<seccomp>)".
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare runtime=crun seccomp=default runs=10 warmup=1 image=overhead/bench:latest process=true
rn_args "$@"
rn_oneof runtime crun runc
rn_oneof seccomp default none
rn_int runs; rn_int warmup
[ "$P_runs" -ge 1 ] || rn_die "parameter runs=$P_runs: must be at least 1"
[ -n "$P_image" ] || rn_die "parameter image is empty"
rn_require hyperfine docker python3 unshare "$P_runtime"
ARGS_JSON=$(python3 -c 'import json, shlex, sys; print(json.dumps(shlex.split(sys.argv[1])))' \
    "$P_process" 2>/dev/null) || rn_die "parameter process='$P_process' is not a command line (unbalanced quotes?)"
[ "$ARGS_JSON" != "[]" ] || rn_die "parameter process is empty"
IMAGE_ID=$(docker image inspect --format '{{.Id}}' "$P_image" 2>/dev/null) \
    || rn_die "parameter image=$P_image: no such image in this host's Docker (docker image inspect failed)"

RT=$P_runtime
RT_VERSION=$("$RT" --version 2>&1 | tr '\n' ' ' | sed 's/ *$//')
CACHE=/var/tmp/overhead-oci
CID=overhead-oci-$$-$RT          # the container's id: one per trial, reused by every run
SECCOMP_CID=""                   # Docker's container the profile is read from
BUNDLE=""
NS=no                            # yes: runs happen without /sys/fs/cgroup/unified
# a private mount namespace without the cgroup2 mount, then the command
# shellcheck disable=SC2016
NS_SH='umount /sys/fs/cgroup/unified || exit 125; exec "$@"'

note() { echo "oci-run: $*" >> "$RN_TMP/stderr"; }

# rt ARGS...: the runtime, in the namespace the runs use
rt() {
    if [ "$NS" = yes ]; then
        unshare -m --propagation private sh -c "$NS_SH" sh "$RT" "$@"
    else
        "$RT" "$@"
    fi
}

# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    if [ -n "$SECCOMP_CID" ]; then docker rm -f "$SECCOMP_CID" >/dev/null 2>&1 || true; fi
    for _id in "$CID" "$CID-try"; do
        if [ -n "$BUNDLE" ] && rt state "$_id" >/dev/null 2>&1; then
            rt delete -f "$_id" >/dev/null 2>&1 || true
        fi
    done
    if [ -n "$BUNDLE" ]; then rm -rf "$BUNDLE"; fi
    return 0
}
trap cleanup EXIT

# failed STATUS WHAT CMD...: a preparation step failed; the trial records it (CMD as its
# command) and ends with STATUS.
failed() {
    _st=$1; shift
    note "$1 failed (status $_st)"
    shift
    rn_begin oci-run "$RT" hyperfine "$RT_VERSION" -- "$@"
    rn_finish "$_st"
}

# --- the root file system: made once per image id --------------------------------------------
HEX=${IMAGE_ID#sha256:}
ROOTFS=$CACHE/$HEX/rootfs
make_rootfs() {
    _tmp=$CACHE/.build-$HEX-$$
    rm -rf "$_tmp"
    mkdir -p "$_tmp/rootfs" || return 1
    _c=$(docker create --pull never "$P_image" true) || { rm -rf "$_tmp"; return 1; }
    docker export "$_c" | tar -C "$_tmp/rootfs" -xf -
    _st=$?
    docker rm -f "$_c" >/dev/null
    [ "$_st" -eq 0 ] || { rm -rf "$_tmp"; return "$_st"; }
    # only a finished tree gets the final name; another trial may have been faster
    mv -T "$_tmp" "$CACHE/$HEX" 2>/dev/null || rm -rf "$_tmp"
    [ -d "$ROOTFS/usr" ]
}
if [ -d "$ROOTFS" ]; then
    ROOTFS_CACHED=yes
    note "rootfs: $ROOTFS (cached, image $IMAGE_ID)"
else
    ROOTFS_CACHED=no
    mkdir -p "$CACHE"
    # shellcheck disable=SC2016  # the recorded recipe, for sh -c
    make_rootfs 2>> "$RN_TMP/stderr" || failed $? "making the rootfs (docker export of $P_image)" \
        sh -c 'docker export "$(docker create "$1" true)" | tar -C "$2" -xf -' sh "$P_image" "$ROOTFS"
    note "rootfs: $ROOTFS made from $P_image ($IMAGE_ID)"
fi

# --- Docker's default seccomp profile, as Docker writes it into a container's config ----------
SECCOMP_FROM=""
capture_seccomp() {
    SECCOMP_CID=$(docker run -d --rm --pull never --runtime runc --network none \
                  --log-driver none "$P_image" sleep 60) || return 1
    _n=0
    while [ "$_n" -lt 100 ]; do
        for _d in /run/containerd/io.containerd.runtime.v2.task/moby \
                  /run/docker/containerd/daemon/io.containerd.runtime.v2.task/moby; do
            if [ -r "$_d/$SECCOMP_CID/config.json" ]; then
                cp "$_d/$SECCOMP_CID/config.json" "$RN_TMP/docker-config.json" || return 1
                SECCOMP_FROM="$_d/$SECCOMP_CID/config.json"
                docker rm -f "$SECCOMP_CID" >/dev/null || return 1
                SECCOMP_CID=""
                return 0
            fi
        done
        sleep 0.1; _n=$((_n + 1))
    done
    echo "no config.json of container $SECCOMP_CID under containerd's moby task folders" >&2
    return 1
}
if [ "$P_seccomp" = default ]; then
    capture_seccomp 2>> "$RN_TMP/stderr" || failed 1 "capturing Docker's seccomp profile" \
        docker run -d --rm --runtime runc --network none "$P_image" sleep 60
fi

# --- the bundle ------------------------------------------------------------------------------
BUNDLE=$(mktemp -d "$CACHE/bundle-$CID.XXXXXX")
make_config() {
    (cd "$BUNDLE" && "$RT" spec) || return 1
    python3 - "$BUNDLE/config.json" "$ROOTFS" "$ARGS_JSON" "$RN_TMP/docker-config.json" \
        "$P_seccomp" > "$BUNDLE/seccomp.facts" <<'EOF' || return 1
import json, sys
path, rootfs, args, docker, seccomp = sys.argv[1:]
c = json.load(open(path))
c["process"]["terminal"] = False
c["process"]["args"] = json.loads(args)
c["root"] = {"path": rootfs, "readonly": True}
c["hostname"] = "overhead-oci"
c.setdefault("linux", {}).pop("seccomp", None)
if seccomp == "default":
    profile = json.load(open(docker)).get("linux", {}).get("seccomp")
    if not profile:
        sys.exit(f"{docker}: Docker wrote no linux.seccomp (is it running with seccomp=unconfined?)")
    c["linux"]["seccomp"] = profile
    names = sum(len(rule.get("names") or []) for rule in profile.get("syscalls") or [])
    print(f"seccomp_syscalls={names}")
    print(f"seccomp_default_action={profile.get('defaultAction', '')}")
json.dump(c, open(path, "w"), indent=2)
EOF
    cp "$BUNDLE/config.json" "$RN_TMP/config.json"
}
make_config 2>> "$RN_TMP/stderr" || failed 1 "writing the bundle's config.json" "$RT" spec

# --- the cgroup layout and crun's hybrid-mode refusal ----------------------------------------
if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
    CGROUP=unified
elif [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
    CGROUP=hybrid
    CONTROLLERS=$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null || true)
    if [ -n "$CONTROLLERS" ]; then
        NS=yes
        if command -v crun >/dev/null 2>&1; then
            # ask crun itself (it refuses before it creates anything)
            if crun run --bundle "$BUNDLE" "$CID-try" > /dev/null 2> "$BUNDLE/try.err" < /dev/null; then
                NS=no
                note "cgroup: hybrid layout, /sys/fs/cgroup/unified has controllers ($CONTROLLERS), and crun runs there: no workaround"
            elif grep -q 'hybrid mode not supported' "$BUNDLE/try.err"; then
                note "cgroup: hybrid layout, /sys/fs/cgroup/unified has controllers ($CONTROLLERS); crun refuses it: $(cat "$BUNDLE/try.err")"
            else
                note "cgroup: hybrid layout with controllers ($CONTROLLERS); crun failed there for another reason: $(cat "$BUNDLE/try.err")"
            fi
        else
            note "cgroup: hybrid layout, /sys/fs/cgroup/unified has controllers ($CONTROLLERS), which crun 1.8 refuses (crun is not installed to ask)"
        fi
        if [ "$NS" = yes ]; then
            CGROUP=hybrid-without-unified
            note "cgroup: every run (of crun and of runc alike) happens in a private mount namespace without /sys/fs/cgroup/unified (unshare -m --propagation private; umount)"
        fi
    fi
else
    CGROUP=legacy
fi
[ "$NS" = yes ] || note "cgroup: $CGROUP layout, runs in the host's mount namespace"

# --- an untimed run: the container runs, and nothing is left behind --------------------------
left_behind() { rt state "$CID" >/dev/null 2>&1; }
set +e
rt run --bundle "$BUNDLE" "$CID" < /dev/null >> "$RN_TMP/stderr" 2>&1
STATUS=$?
set -e
[ "$STATUS" -eq 0 ] || failed "$STATUS" "the untimed first run" "$RT" run --bundle "$BUNDLE" "$CID"
if left_behind; then
    failed 1 "the untimed first run left container $CID behind ($RT run did not delete it)" \
        "$RT" run --bundle "$BUNDLE" "$CID"
fi
note "an untimed run of $CID exited 0 and $RT deleted the container"

# --- the timed runs --------------------------------------------------------------------------
LIBSECCOMP=$(ldd "$(command -v "$RT")" 2>/dev/null | sed -n 's/.*libseccomp[^ ]* => \([^ ]*\).*/\1/p' | head -n 1)
if [ -n "$LIBSECCOMP" ]; then
    LIBSECCOMP=$(basename "$(readlink -f "$LIBSECCOMP")" | sed -n 's/^libseccomp\.so\.\([0-9.]*\)$/\1/p')
fi
set -- hyperfine --style basic --runs "$P_runs" --warmup "$P_warmup" -N \
    --command-name "$RT run (seccomp=$P_seccomp)" --export-json "$RN_TMP/output" \
    -- "$RT run --bundle $BUNDLE $CID"
[ "$NS" = no ] || set -- unshare -m --propagation private sh -c "$NS_SH" sh "$@"
rn_meta p_cgroup "$CGROUP"
rn_meta image_id "$IMAGE_ID"
rn_meta rootfs "$ROOTFS"
rn_meta rootfs_cached "$ROOTFS_CACHED"
rn_meta docker_version "$(docker version --format '{{.Server.Version}}' 2>/dev/null || echo unavailable)"
rn_meta hyperfine_version "$(hyperfine --version)"
rn_meta libseccomp_version "${LIBSECCOMP:-unavailable}"
if [ "$P_seccomp" = default ]; then
    rn_meta seccomp_source "Docker's default profile from the OCI config of container $(basename "$(dirname "$SECCOMP_FROM")") ($SECCOMP_FROM, kept as docker-config.json)"
    while IFS='=' read -r _k _v; do rn_meta "$_k" "$_v"; done < "$BUNDLE/seccomp.facts"
else
    rn_meta seccomp_source none
fi
rn_begin oci-run "$RT" hyperfine "$RT_VERSION" -- "$@"
set +e
"$@" < /dev/null >> "$RN_TMP/stderr" 2>&1
RN_STATUS=$?
set -e
if [ "$RN_STATUS" -eq 0 ] && left_behind; then
    note "container $CID is still there after the timed runs ($RT run did not delete it)"
    RN_STATUS=1
fi
rn_finish "$RN_STATUS"
