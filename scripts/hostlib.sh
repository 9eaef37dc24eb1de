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
