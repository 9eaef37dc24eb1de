#!/bin/sh
# hyperfine: wall-clock time of a command, every run kept (--export-json). Used for container
# start-up cost, e.g. command='docker run --rm overhead/bench true' against command='true'.
#     sh runners/hyperfine.sh OUTDIR command='unshare -n true' runs=100 warmup=3
# shell=none runs the command without an intermediate shell (hyperfine -N), which is what a
# start-up measurement of a few milliseconds needs; shell=sh subtracts the shell's own start-up.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare command=true runs=10 warmup=0 shell=none
rn_args "$@"
rn_require hyperfine
rn_int runs; rn_int warmup
[ "$P_runs" -ge 2 ] || rn_die "runs must be at least 2 (hyperfine's minimum)"
rn_oneof shell none sh
[ -n "$P_command" ] || rn_die "command is empty"
set -- hyperfine --style basic --runs "$P_runs" --warmup "$P_warmup"
[ "$P_shell" = none ] && set -- "$@" -N
set -- "$@" --export-json "$RN_TMP/output" -- "$P_command"
rn_begin hyperfine hyperfine hyperfine "$(hyperfine --version)" -- "$@"
# hyperfine's text report is kept too, as stderr (the JSON is the output the parser reads)
set +e
"$@" >> "$RN_TMP/stderr" 2>&1
RN_STATUS=$?
set -e
rn_finish "$RN_STATUS"
