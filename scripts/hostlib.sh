# Shared by hosts-up.sh, hosts-down.sh and nfs-server.sh (sourced; each defines its own say()).
# POSIX sh.

now() { date +%s%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", (b - a) / 1e9 }'; }
# need_free DIR GIB WHAT: die unless the file system holding DIR has GIB GiB free
need_free() {
  _free=$(df -Pk "$1" | awk 'NR == 2 { print $4 }')
  [ "$_free" -ge $(($2 * 1048576)) ] || die "$1: $(awk -v k="$_free" 'BEGIN { printf "%.1f", k / 1048576 }') GiB free, $3 needs $2 GiB: free some space (old checkouts' data/hosts/image, docker image prune) and run again"
}
# running PID: the process exists and is not a zombie (PID 1 here may reap late or never)
running() { [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'; }

# stop NAME PIDFILE COMM SECONDS: TERM the process the pidfile names (if it is still COMM),
# wait up to SECONDS, then KILL
stop() {
  if [ ! -s "$2" ]; then say "$1: not started by hosts-up"; return 0; fi
  pid=$(cat "$2")
  if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$3" ] || ! running "$pid"; then
    say "$1: pid $pid no longer running"; rm -f "$2"; return 0
  fi
  t=$(now)
  kill "$pid" 2>/dev/null || true
  n=0
  while running "$pid" && [ $n -lt $(($4 * 10)) ]; do sleep 0.1; n=$((n + 1)); done
  if running "$pid"; then
    say "$1: pid $pid still there after $4 s, killing it"
    kill -9 "$pid" 2>/dev/null || true
    n=0; while running "$pid" && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
  fi
  rm -f "$2"
  say "$1: stopped pid $pid in $(since "$t")"
}

# --- the Docker engine's settings (hosts-up starts dockerd with them, and checks a running one) --
# dockerd_default_pid: print the pid of the one dockerd serving /var/run/docker.sock (a dockerd
# with no -H/--host, or one naming that socket or fd://); nothing when there is none or several
dockerd_default_pid() {
  _found=""
  for _d in /proc/[0-9]*; do
    [ "$(cat "$_d/comm" 2>/dev/null)" = dockerd ] || continue
    _hosts=$(tr '\0' '\n' 2>/dev/null < "$_d/cmdline" \
      | sed -n -e '/^-H$/{n;p;}' -e '/^--host$/{n;p;}' -e 's/^--host=//p' -e 's/^-H=//p')
    if [ -z "$_hosts" ] || printf '%s\n' "$_hosts" \
        | grep -qx -e 'unix:///var/run/docker.sock' -e 'unix:///run/docker.sock' -e 'fd://.*'; then
      _found="$_found ${_d#/proc/}"
    fi
  done
  # shellcheck disable=SC2086  # the pids, one word each
  set -- $_found
  [ $# -ne 1 ] || echo "$1"
}
# dockerd_config CMDLINE: print the config file a dockerd reads (its --config-file, else
# /etc/docker/daemon.json); CMDLINE is its /proc/PID/cmdline
dockerd_config() {
  _f=$(tr '\0' '\n' < "$1" | sed -n -e 's/^--config-file=//p' -e '/^--config-file$/{n;p;}' | head -n 1)
  echo "${_f:-/etc/docker/daemon.json}"
}
# dockerd_differs CMDLINE DAEMON_JSON MOUNTINFO RUNTIMES: print in one line the first setting of
# a running dockerd that differs from what hosts-up starts it with; nothing when none does.
#   CMDLINE    its /proc/PID/cmdline (NUL- or newline-separated arguments)
#   DAEMON_JSON the config file it reads (dockerd_config; it need not exist)
#   MOUNTINFO  its /proc/PID/mountinfo
#   RUNTIMES   what `docker info --format '{{json .Runtimes}}'` printed
# The settings, in order: the userland proxy off (--userland-proxy=false, or "userland-proxy":
# false in DAEMON_JSON; Docker's default is on, and then a published port is reached through
# docker-proxy in user space, not the iptables NAT the campaigns' Docker NAT measures); the
# crun runtime (runtime=crun environments); no cgroup2 mount at /sys/fs/cgroup/unified in its
# mount namespace (on a hybrid cgroup layout crun fails to create containers beside it).
dockerd_differs() {
  _up=$(tr '\0' '\n' < "$1" | sed -n -e 's/^--userland-proxy=//p' -e 's/^--userland-proxy$/true/p' | tail -n 1)
  _how="flag --userland-proxy=$_up"
  if [ -z "$_up" ] && [ -r "$2" ]; then
    _up=$(tr -d ' \t\r\n' < "$2" | sed -n 's/.*"userland-proxy":\([a-zA-Z0-9]*\).*/\1/p')
    _how="\"userland-proxy\": $_up in $2"
  fi
  if [ -z "$_up" ]; then
    echo "userland-proxy is on (Docker's default: no --userland-proxy flag, none in $2); hosts-up runs it with --userland-proxy=false"
    return 0
  fi
  case $_up in
    false|0|f|F|FALSE|False) ;;
    *) echo "userland-proxy is on ($_how); hosts-up runs it with --userland-proxy=false"; return 0 ;;
  esac
  case $4 in
    *'"crun"'*) ;;
    *) echo "it has no crun runtime; hosts-up runs it with --add-runtime crun=/usr/bin/crun"; return 0 ;;
  esac
  if grep -q ' /sys/fs/cgroup/unified ' "$3"; then
    echo "its mount namespace has the cgroup2 mount /sys/fs/cgroup/unified (crun cannot create containers beside it); hosts-up runs it in a private mount namespace without it"
  fi
}
