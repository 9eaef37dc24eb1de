#!/bin/sh
# Parallel compression (the paper's PXZ row of Table I): pixz or multi-threaded xz compressing
# `input` (the paper used enwik9 at level 2), timed by GNU time -v. Without an input, a
# deterministic text corpus of size_mib MiB is generated once into `cache` and reused by every
# later trial on this host (the paper's input was cached in RAM: the first trial of a cell pays
# for reading it, which a warm-up round absorbs). output = an "input_bytes=N" line, then GNU
# time's report; the compressed data is discarded.
#     sh runners/pxz.sh OUTDIR compressor=pixz threads=2 level=2 input=/data/enwik9
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare compressor=pixz threads=2 level=6 input="" size_mib=256 cache=/var/tmp/overhead-cache
rn_args "$@"
rn_oneof compressor pixz xz
rn_require "$P_compressor" /usr/bin/time
rn_int threads; rn_int level; rn_int size_mib
work=$(mktemp -d "${TMPDIR:-/tmp}/overhead-pxz.XXXXXX")
if [ -z "$P_input" ]; then
    # compressible, reproducible text: the decimal integers, one per line, cut to size; made
    # once per host (written aside and renamed, so a killed trial never leaves half a corpus)
    mkdir -p "$P_cache"
    P_input="$P_cache/corpus-seq-${P_size_mib}mib.txt"
    if [ ! -s "$P_input" ]; then
        seq 1 200000000 | head -c $((P_size_mib * 1048576)) > "$P_input.tmp.$$"
        mv "$P_input.tmp.$$" "$P_input"
    fi
else
    rn_unused size_mib cache
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
