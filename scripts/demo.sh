#!/bin/sh
# make demo: the paper rebuilt twice, from the authors' raw data and measured live here;
# make studies (or make study NAME=...): the neighbouring studies, measured here.
#   1. the authors' tables and figures (overhead reproduce)          -> figures/rc25482/report.html
#   2. the local hosts up (scripts/hosts-up.sh: sshd, dockerd, the Debian image, the VM disk)
#   3. the campaign measured through the campaign notebook (papermill; resumes when run again)
#   4. the paper notebooks on the campaign (overhead reproduce --campaign) -> figures/<name>/report.html
#   5. the studies (STUDIES: none for make demo, all four for make studies): each campaign
#      measured through the campaign notebook, then its study notebook -> figures/startup/,
#      figures/fsync/, figures/sysbench_suite/, figures/containers_2026/ (report.html each);
#      figures/index.html lists every report
#   6. the hosts down again (only if this script started them), also on failure or Ctrl-C
# PAPER=no leaves out 1, 3 and 4 (make studies). Each part's wall time is printed at the end.
# Ctrl-C: the campaign notebooks run under papermill's overhead engine, which passes the
# terminal's Ctrl-C to the kernel that measures (its own session): the trials in flight finish,
# the run stops (run again to resume), the hosts go down; a second Ctrl-C stops now.
# Run as root (hosts-up starts sshd and dockerd).
#   CAMPAIGN=data/campaigns/local-quick.yml IBM_DATA=... TIDY=data/tidy/ibm sh scripts/demo.sh
set -eu
cd "$(dirname "$0")/.."
BIN=.venv/bin
CAMPAIGN=${CAMPAIGN:-data/campaigns/local-quick.yml}
TIDY=${TIDY:-data/tidy/ibm}
IBM_DATA=${IBM_DATA:-}
PAPER=${PAPER:-yes}
# the studies to measure: <campaign file stem>:<study notebook>:<figures folder>; none by
# default (make studies passes ALL_STUDIES, make study NAME=<stem> one of them)
ALL_STUDIES="startup:seed_startup:startup fsync:seed_fsync:fsync sysbench-suite:seed_sysbench:sysbench_suite containers-2026:containers:containers_2026"
STUDIES=${STUDIES-}
case "$STUDIES" in all) STUDIES=$ALL_STUDIES ;; esac
picked=""
for want in $STUDIES; do  # a bare stem (make study NAME=fsync) names its entry of ALL_STUDIES
  case "$want" in
    *:*) picked="$picked $want" ;;
    *) hit=""
       for s in $ALL_STUDIES; do [ "${s%%:*}" = "$want" ] && hit=$s; done
       if [ -z "$hit" ]; then
         echo "demo: no study $want (studies: $(for s in $ALL_STUDIES; do printf '%s ' "${s%%:*}"; done))" >&2
         exit 2
       fi
       picked="$picked $hit" ;;
  esac
done
STUDIES=${picked# }
# minutes each part took on this machine (2 cores, quiet; measured, see README), for the plan
# printed at the start; "?" where no quiet run has timed it yet
expect() {
  case "$1" in
    authors) echo 1 ;; hosts) echo 3 ;; live) echo 13 ;; containers-2026) echo 25 ;; *) echo "?" ;;
  esac
}
# papermill with the overhead engine: a terminal's Ctrl-C reaches the kernel that measures
pm() { "$BIN/papermill" --engine overhead --cwd . --log-output --no-progress-bar "$@"; }
TIMES=$(mktemp)

say() { printf '\ndemo: %s\n' "$*"; }
timed() { # timed LABEL CMD...: run CMD, remember how long it took (in $TIMES)
  label=$1
  shift
  start=$(date +%s.%N)
  rc=0
  "$@" || rc=$?
  awk -v a="$start" -v b="$(date +%s.%N)" -v l="$label" -v r="$rc" \
    'BEGIN { printf "  %-50s %7.1f s%s\n", l, b - a, (r == 0 ? "" : "  (FAILED, exit " r ")") }' >> "$TIMES"
  return "$rc"
}
# reproduce [ARGS...]: overhead reproduce on the authors' data (IBM_DATA when given)
reproduce() {
  if [ -n "$IBM_DATA" ]; then "$BIN/overhead" reproduce --ibm "$IBM_DATA" --tidy "$TIDY" "$@"
  else "$BIN/overhead" reproduce --tidy "$TIDY" "$@"; fi
}

name=$("$BIN/python" -c 'import sys; from overhead.campaign import inventory; print(inventory.load(sys.argv[1]).name)' "$CAMPAIGN")
t0=$(date +%s.%N)

say "the plan (expected minutes on this kind of machine when quiet; installs before this are printed by make)"
total=$(expect hosts); unknown=""
add() { m=$(expect "$1"); if [ "$m" = "?" ]; then unknown=" + untimed parts"; else total=$((total + m)); fi; }
if [ "$PAPER" = yes ]; then
  add authors; add live
  printf '  %-58s ~%s min\n' "the authors' tables and figures" "$(expect authors)"
fi
printf '  %-58s ~%s min\n' "the local hosts up (what is built is reused when unchanged)" "$(expect hosts)"
[ "$PAPER" = yes ] && printf '  %-58s ~%s min\n' "the live paper: campaign $name and its notebooks" "$(expect live)"
for study in $STUDIES; do
  stem=${study%%:*}
  add "$stem"
  printf '  %-58s ~%s min\n' "study $stem" "$(expect "$stem")"
done
[ -z "$STUDIES" ] && [ "$PAPER" = yes ] && echo "  (the studies: make studies, or make study NAME=startup|fsync|sysbench-suite|containers-2026)"
printf '  %-58s ~%s min%s\n' "in all" "$total" "$unknown"

if [ "$PAPER" = yes ]; then
  say "1/6 the authors' tables and figures from their raw data"
  timed "1 authors' rebuild (ingest + 6 notebooks)" reproduce
else
  say "1/6 the authors' tables and figures: not asked for (PAPER=no)"
fi

say "2/6 the local hosts"
started_hosts=no
if ! { [ -s data/hosts/sshd/sshd.pid ] && kill -0 "$(cat data/hosts/sshd/sshd.pid)" 2>/dev/null; }; then
  started_hosts=yes
fi
down() {
  if [ "$started_hosts" = yes ]; then
    say "6/6 the local hosts down"
    timed "6 hosts-down" sh scripts/hosts-down.sh || true
  else
    say "6/6 the local hosts were running before the demo: left running"
  fi
}
finish() {
  status=$?   # timed (in down) sets rc
  trap - EXIT INT TERM
  down
  say "time per part"
  cat "$TIMES"
  rm -f "$TIMES"
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "  %-50s %7.1f s\n", "total", b - a }'
  if [ "$status" -ne 0 ]; then
    say "stopped (exit $status). Run the same make target again: finished trials are kept and the campaign resumes."
  fi
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT TERM
timed "2 hosts-up" sh scripts/hosts-up.sh

if [ "$PAPER" = yes ]; then
  say "3/6 campaign $name ($CAMPAIGN) through notebooks/campaign.ipynb"
  mkdir -p "notebooks/executed/$name"
  timed "3 campaign $name (measure + ingest)" pm \
    -p campaign "$CAMPAIGN" notebooks/campaign.ipynb "notebooks/executed/$name/campaign.ipynb"

  say "4/6 the paper notebooks on campaign $name"
  timed "4 paper notebooks on $name (+ live report)" reproduce --campaign "$name"
fi

[ -n "$STUDIES" ] && say "5/6 the studies: $STUDIES"
for study in $STUDIES; do
  stem=${study%%:*}; rest=${study#*:}; nb=${rest%%:*}; out=${rest#*:}
  mkdir -p "notebooks/executed/$stem"
  timed "5 $stem: campaign (measure + ingest)" pm \
    -p campaign "data/campaigns/$stem.yml" notebooks/campaign.ipynb \
    "notebooks/executed/$stem/campaign.ipynb"
  timed "5 $stem: study notebook" pm \
    -p campaign "$stem" "notebooks/$nb.ipynb" "notebooks/executed/$stem/$nb.ipynb"
done

say "reports"
"$BIN/python" -m overhead.seeds.index figures > /dev/null
echo "  every report:      $(pwd)/figures/index.html"
if [ "$PAPER" = yes ]; then
  echo "  the authors' data: $(pwd)/figures/rc25482/report.html"
  echo "  measured here:     $(pwd)/figures/$name/report.html"
fi
for study in $STUDIES; do
  out=${study##*:}
  echo "  study:             $(pwd)/figures/$out/report.html"
done
