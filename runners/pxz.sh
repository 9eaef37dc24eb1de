#!/bin/sh
# Parallel compression (the paper's PXZ row of Table I): pixz or multi-threaded xz compressing
# `input` (or, when input is empty, a generated text file of size_mib MiB), timed by GNU time -v.
# output = an "input_bytes=N" line, then GNU time's report; the compressed data is discarded.
#     sh runners/pxz.sh OUTDIR compressor=pixz threads=2 input=/data/enwiki-1G.xml
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare compressor=pixz threads=2 level=6 input="" size_mib=256
rn_args "$@"
rn_oneof compressor pixz xz
rn_require "$P_compressor" /usr/bin/time
rn_int threads; rn_int level; rn_int size_mib
work=$(mktemp -d "${TMPDIR:-/tmp}/overhead-pxz.XXXXXX")
if [ -z "$P_input" ]; then
    # compressible, reproducible text: the decimal integers, one per line, cut to size
    seq 1 200000000 | head -c $((P_size_mib * 1048576)) > "$work/input.txt"
    P_input="$work/input.txt"
fi
[ -r "$P_input" ] || { rm -rf "$work"; rn_die "input '$P_input' is not readable"; }
# shellcheck disable=SC2016 # in the xz branch, $1..$4 are the inner shell's arguments
case "$P_compressor" in
    pixz) set -- pixz -p "$P_threads" -"$P_level" "$P_input" "$work/out" ;;
    xz) set -- sh -c 'exec xz -T"$1" -"$2" -k -c "$3" > "$4"' xz "$P_threads" "$P_level" "$P_input" "$work/out" ;;
esac
case "$P_compressor" in  # pixz has no --version
    pixz) version="pixz $(dpkg-query -W -f '${Version}' pixz 2>/dev/null || echo unknown)" ;;
    xz) version=$(xz --version | head -n 1) ;;
esac
rn_begin pxz "$P_compressor" xz "$version" -- /usr/bin/time -v "$@"
printf 'input_bytes=%s\n' "$(wc -c < "$P_input" | tr -d ' ')" >> "$RN_TMP/output"
rn_exec /usr/bin/time -v -a -o "$RN_TMP/output" "$@"
rm -rf "$work"
rn_finish "$RN_STATUS"
