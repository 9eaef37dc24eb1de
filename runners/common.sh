# Shared by every runner in this folder; each runner sources it. POSIX sh (Debian's dash).
#
# A runner runs ON the measured host (native, inside a container, inside a VM) as
#     sh runners/<benchmark>.sh OUTDIR [name=value ...]
# and leaves one trial directory OUTDIR holding
#     output   the tool's report, byte for byte as the tool wrote it (what the parser reads)
#     stderr   the tool's standard error
#     meta     name=value lines: runner, tool, parser, tool_version, command, exit_status,
#              started_at/finished_at (UTC), kernel, cpu_model, nproc, mem_total_bytes,
#              governor, mitigations, virt_vm and virt_container (systemd-detect-virt --vm
#              and --container, or the evidence files; "unavailable" when neither tells),
#              and p_<name> for every parameter
#              that applied to the run (see rn_unused)
# The trial is assembled in OUTDIR.partial.<pid> and renamed into place at the end, so OUTDIR
# either does not exist or is complete; an existing OUTDIR is never overwritten. A tool that
# fails still leaves its trial (exit_status, stderr), and the runner exits with its status.
#
# Runner exit status: the tool's own; 2 for a usage error (nothing is written).

set -eu

RN_OUT=""
RN_TMP=""
RN_PARAMS=""

# rn_die MESSAGE: usage error, nothing recorded, exit 2.
rn_die() {
    echo "$(basename "$0"): $*" >&2
    [ -n "$RN_TMP" ] && rm -rf "$RN_TMP"
    exit 2
}

# rn_declare NAME=DEFAULT ...: the parameters this runner accepts, with their defaults; each
# becomes the shell variable P_NAME.
rn_declare() {
    for _decl in "$@"; do
        _name=${_decl%%=*}
        case "$_name" in *[!a-z0-9_]*|"") rn_die "bad parameter declaration '$_decl'" ;; esac
        eval "P_$_name=\${_decl#*=}"
        RN_PARAMS="$RN_PARAMS $_name"
    done
}

# rn_http_url [NOTE]: set P_url for an HTTP load generator (ab, wrk) from url= (which may name
# {host}, replaced by host=, bracketed if IPv6) or else from host=, port= and path=; the
# parameters not used are marked so (rn_unused). NOTE is added to the message for a url
# without a path.
rn_http_url() {
    if [ -n "$P_url" ]; then
        case "$P_url" in
            *"{host}"*)
                [ -n "$P_host" ] || rn_die "url='$P_url' names {host}, but host is empty"
                _h=$P_host
                case "$_h" in *:*) _h="[$_h]" ;; esac  # IPv6
                P_url="${P_url%%"{host}"*}$_h${P_url#*"{host}"}"
                rn_unused port path ;;
            *) rn_unused host port path ;;
        esac
        case "$P_url" in
            *"{"*|*"}"*) rn_die "url='$P_url' holds a placeholder other than {host}" ;;
            http://?*/*|https://?*/*) ;;
            *) rn_die "url='$P_url' must be http://HOST[:PORT]/PATH${1:+ $1}" ;;
        esac
    else
        case "$P_path" in /*) ;; *) rn_die "path='$P_path' must start with /" ;; esac
        [ -n "$P_host" ] || rn_die "host is empty (give host= or url=)"
        { [ "$P_port" -ge 1 ] && [ "$P_port" -le 65535 ]; } || rn_die "port=$P_port is not between 1 and 65535"
        case "$P_host" in
            *:*) P_url="http://[$P_host]:$P_port$P_path" ;;  # IPv6
            *) P_url="http://$P_host:$P_port$P_path" ;;
        esac
    fi
}

# rn_args "$@": OUTDIR, then name=value for declared names. An unknown name, a missing or an
# existing OUTDIR is a usage error; the trial is then started in OUTDIR.partial.<pid>.
rn_args() {
    [ $# -gt 0 ] || rn_die "usage: $(basename "$0") OUTDIR [name=value ...] (names:$RN_PARAMS)"
    case "$1" in *=*) rn_die "the first argument must be the trial directory, not '$1'" ;; esac
    RN_OUT=$1
    case "$RN_OUT" in /*) ;; *) RN_OUT="$(pwd)/$RN_OUT" ;; esac  # runners may cd
    shift
    for _arg in "$@"; do
        case "$_arg" in
            *=*) _name=${_arg%%=*} ;;
            *) rn_die "argument '$_arg' is not name=value" ;;
        esac
        case " $RN_PARAMS " in
            *" $_name "*) eval "P_$_name=\${_arg#*=}" ;;
            *) rn_die "unknown parameter '$_name' (known:$RN_PARAMS)" ;;
        esac
    done
    [ -e "$RN_OUT" ] && rn_die "trial directory '$RN_OUT' already exists; a finished trial is never overwritten"
    mkdir -p "$(dirname "$RN_OUT")"
    RN_TMP="$RN_OUT.partial.$$"
    rm -rf "$RN_TMP"
    mkdir "$RN_TMP"
    : > "$RN_TMP/meta"
    trap 'rm -rf "$RN_TMP"; exit 130' INT TERM HUP
}

# rn_unused NAME...: these parameters do not apply to this run (another sysbench test's options,
# say): they are left out of meta, so no row claims a setting the tool never saw.
rn_unused() {
    for _u in "$@"; do
        _keep=""
        for _n in $RN_PARAMS; do [ "$_n" = "$_u" ] || _keep="$_keep $_n"; done
        RN_PARAMS=$_keep
    done
}

# rn_quote WORD: WORD as a shell would need it typed (single-quoted when it has anything but
# safe characters), so the recorded command line can be pasted back into a shell.
rn_quote() {
    case "$1" in
        "" | *[!A-Za-z0-9_./=:,+@%^-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
        *) printf '%s' "$1" ;;
    esac
}

# rn_meta NAME VALUE: one meta line; newlines in VALUE become spaces so a line is a field.
rn_meta() {
    printf '%s=%s\n' "$1" "$(printf '%s' "$2" | tr '\n' ' ')" >> "$RN_TMP/meta"
}

# rn_require CMD...: each command must exist on this host, or it is a usage error.
rn_require() {
    for _c in "$@"; do
        command -v "$_c" >/dev/null 2>&1 || rn_die "'$_c' is not installed on this host"
    done
}

# rn_int NAME: parameter NAME must be a non-negative integer.
rn_int() {
    eval "_v=\$P_$1"
    case "$_v" in ''|*[!0-9]*) rn_die "parameter $1='$_v' is not a non-negative integer" ;; esac
}

# rn_oneof NAME CHOICE...: parameter NAME must be one of the choices.
rn_oneof() {
    _n=$1; shift
    eval "_v=\$P_$_n"
    for _c in "$@"; do [ "$_v" = "$_c" ] && return 0; done
    rn_die "parameter $_n='$_v' must be one of: $*"
}

# rn_host_facts: what the host is (the provenance the tidy tables carry per run_id).
rn_host_facts() {
    rn_meta kernel "$(uname -sr)"
    rn_meta machine "$(uname -m)"
    rn_meta cpu_model "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
    rn_meta nproc "$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)"
    rn_meta mem_total_bytes "$(awk '/^MemTotal:/ {print $2 * 1024}' /proc/meminfo 2>/dev/null)"
    _gov=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
    rn_meta governor "$( [ -r $_gov ] && cat $_gov || echo unavailable)"
    _vul=/sys/devices/system/cpu/vulnerabilities
    if [ -d $_vul ]; then
        rn_meta mitigations "$(for f in "$_vul"/*; do printf '%s: %s; ' "$(basename "$f")" "$(cat "$f")"; done)"
    else
        rn_meta mitigations unavailable
    fi
    # what virtualization runs this host, asked twice (plain systemd-detect-virt names only the
    # innermost layer: on a VM with a /.dockerenv it says "docker"); the same answers as
    # lib/overhead/environments/posix.py's VIRT_SNIPPET (a test holds them together)
    _vm=unavailable; _ct=unavailable
    if command -v systemd-detect-virt >/dev/null 2>&1; then
        _v=$(systemd-detect-virt --vm 2>/dev/null || true); [ -z "$_v" ] || _vm=$_v
        _v=$(systemd-detect-virt --container 2>/dev/null || true); [ -z "$_v" ] || _ct=$_v
    fi
    if [ "$_vm" = unavailable ] && grep -qw hypervisor /proc/cpuinfo 2>/dev/null; then
        _vm=hypervisor  # a VM, its kind cannot be told
    fi
    if [ "$_ct" = unavailable ]; then
        if [ -f /.dockerenv ]; then _ct=docker
        elif [ -f /run/.containerenv ]; then _ct=podman
        elif [ -s /run/systemd/container ]; then _ct=$(head -n 1 /run/systemd/container)
        fi
    fi
    rn_meta virt_vm "$_vm"
    rn_meta virt_container "$_ct"
}

# rn_params: every declared parameter as p_<name>, after the arguments were applied.
rn_params() {
    for _n in $RN_PARAMS; do
        eval "_v=\$P_$_n"
        rn_meta "p_$_n" "$_v"
    done
}

# rn_begin RUNNER TOOL PARSER VERSION -- CMD...: record who runs what where (CMD is recorded,
# not run) and the start time.
rn_begin() {
    rn_meta runner "$1"
    rn_meta tool "$2"
    rn_meta parser "$3"
    rn_meta tool_version "$4"
    shift 5
    _cmd=""
    for _a in "$@"; do
        # an argument naming the trial being assembled is recorded with its final path
        case "$_a" in *"$RN_TMP"*) _a="${_a%%"$RN_TMP"*}$RN_OUT${_a#*"$RN_TMP"}" ;; esac
        _cmd="$_cmd${_cmd:+ }$(rn_quote "$_a")"
    done
    rn_meta command "$_cmd"
    rn_host_facts
    rn_params
    rn_meta started_at "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)"
}

# rn_exec CMD...: run CMD with stdout appended to output and stderr to stderr; its exit status
# is left in RN_STATUS (a failure is recorded, not fatal).
rn_exec() {
    set +e
    "$@" >> "$RN_TMP/output" 2>> "$RN_TMP/stderr"
    RN_STATUS=$?
    set -e
}

# rn_run RUNNER TOOL PARSER VERSION -- CMD...: rn_begin, rn_exec, rn_finish in one.
rn_run() {
    rn_begin "$@"
    shift 5
    rn_exec "$@"
    rn_finish "$RN_STATUS"
}

# rn_finish STATUS: close the meta, rename the trial into place, exit with STATUS.
rn_finish() {
    rn_meta finished_at "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)"
    rn_meta exit_status "$1"
    [ -e "$RN_TMP/output" ] || : > "$RN_TMP/output"
    [ -e "$RN_TMP/stderr" ] || : > "$RN_TMP/stderr"
    mv "$RN_TMP" "$RN_OUT"
    RN_TMP=""
    exit "$1"
}

# ---- loop devices over image files (sysbench.sh fs=, hdparm.sh device=loop) ---------------------
# A runner names its image in RN_LOOP_IMAGE (a name of its own, in a directory resolved with
# `pwd -P`: the kernel keeps the resolved path) before it creates the file, and makes
# rn_loop_cleanup (or a function calling it) its EXIT trap; rn_args's INT/TERM/HUP trap exits,
# so the image is detached and deleted on every exit path: success, failure, usage error, signal.
RN_LOOP="" RN_LOOP_IMAGE="" RN_LOOP_DIO=""

# rn_size NAME VALUE: VALUE (digits, optionally K, M, G or T: powers of 1024, as sysbench reads
# them) in bytes, into SIZE_BYTES; not in $(...), where rn_die would end only a subshell.
# shellcheck disable=SC2034 # SIZE_BYTES is for the runner
rn_size() {
    case "$2" in
        *[!0-9]) _num=${2%?}; _suf=${2#"$_num"} ;;
        *) _num=$2; _suf="" ;;
    esac
    case "$_num" in ''|*[!0-9]*) rn_die "parameter $1='$2' is not a size (digits, then K, M, G or T)" ;; esac
    case "$_suf" in
        ''|[bB]) SIZE_BYTES=$_num ;;
        [kK]) SIZE_BYTES=$((_num * 1024)) ;;
        [mM]) SIZE_BYTES=$((_num * 1048576)) ;;
        [gG]) SIZE_BYTES=$((_num * 1073741824)) ;;
        [tT]) SIZE_BYTES=$((_num * 1099511627776)) ;;
        *) rn_die "parameter $1='$2' is not a size (digits, then K, M, G or T)" ;;
    esac
}

# rn_loop_attach WHAT DIO: attach RN_LOOP_IMAGE (made by the runner) to a free loop device,
# losetup --direct-io=DIO (on: the loop device reads and writes its image with O_DIRECT, so the
# file system under it does not cache it a second time), into RN_LOOP; RN_LOOP_DIO is the
# device's dio flag as the kernel has it (1, 0, or unknown), for the runner to check (a file
# system that refuses O_DIRECT leaves it 0). WHAT (the parameter asking for the device) starts
# the error message when no device could be attached.
rn_loop_attach() {
    if ! _out=$(losetup -f --show --direct-io="$2" "$RN_LOOP_IMAGE" 2>&1); then
        rn_die "$1: no loop device could be attached (losetup: $(printf '%s' "$_out" | tr '\n' ' '))"
    fi
    # --show prints the device; a warning (direct I/O refused, say) may come with it
    RN_LOOP=$(printf '%s\n' "$_out" | grep '^/dev/' | tail -n 1)
    [ -n "$RN_LOOP" ] || rn_die "$1: losetup did not say which loop device it attached ($_out)"
    RN_LOOP_DIO=$(cat "/sys/block/${RN_LOOP#/dev/}/loop/dio" 2>/dev/null || echo unknown)
}

# rn_loop_cleanup: detach every loop device over RN_LOOP_IMAGE (ours alone: the image's name is
# this run's; a device number may have been given to another program since) and delete it.
# shellcheck disable=SC2317 # run by an EXIT trap
rn_loop_cleanup() {
    [ -n "$RN_LOOP_IMAGE" ] || return 0
    for _bf in /sys/block/loop*/loop/backing_file; do
        [ -r "$_bf" ] || continue
        if [ "$(cat "$_bf" 2>/dev/null)" = "$RN_LOOP_IMAGE" ]; then
            _dev=${_bf#/sys/block/}
            losetup -d "/dev/${_dev%%/*}" 2>/dev/null || true
        fi
    done
    rm -f "$RN_LOOP_IMAGE"
    # shellcheck disable=SC2034 # RN_LOOP_DIO is for the runner
    RN_LOOP="" RN_LOOP_IMAGE="" RN_LOOP_DIO=""
}
