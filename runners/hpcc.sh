#!/bin/sh
# HPC Challenge 1.5 under Open MPI: HPL (the paper's Linpack), STREAM (Copy/Scale/Add/Triad,
# Star and Single) and RandomAccess (GUPS) from one run; output is hpccoutf.txt.
#     sh runners/hpcc.sh OUTDIR np=2 n=20000 nb=192
# n is the HPL matrix order (memory ~ 8*n*n bytes); p x q must equal np (q defaults to np/p).
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare np=1 n=1000 nb=80 p=1 q=0
rn_args "$@"
rn_require hpcc mpirun
rn_int np; rn_int n; rn_int nb; rn_int p; rn_int q
if [ "$P_np" -lt 1 ] || [ "$P_p" -lt 1 ]; then rn_die "np and p must be at least 1"; fi
[ "$P_q" -gt 0 ] || P_q=$((P_np / P_p))
[ $((P_p * P_q)) -eq "$P_np" ] || rn_die "p=$P_p x q=$P_q does not equal np=$P_np"
work=$(mktemp -d "${TMPDIR:-/tmp}/overhead-hpcc.XXXXXX")
# HPL's input: one problem size, one block size, one p x q grid; the remaining lines are the
# values of Debian's example input (/usr/share/doc/hpcc/examples/_hpccinf.txt).
cat > "$work/hpccinf.txt" <<INPUT
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$P_n         Ns
1            # of NBs
$P_nb        NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$P_p         Ps
$P_q         Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
INPUT
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
set -- mpirun $root --oversubscribe -np "$P_np" hpcc
version="hpcc $(dpkg-query -W -f '${Version}' hpcc 2>/dev/null || echo unknown); $(mpirun --version 2>/dev/null | head -n 1)"
rn_begin hpcc hpcc hpcc "$version" -- "$@"
cd "$work"
set +e
"$@" >> "$RN_TMP/stderr" 2>&1
RN_STATUS=$?
set -e
[ -f hpccoutf.txt ] && cat hpccoutf.txt > "$RN_TMP/output"
cd /
rm -rf "$work"
rn_finish "$RN_STATUS"
