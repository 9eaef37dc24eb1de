#!/bin/sh
# fio: one job against a scratch file, reported as fio JSON+ (per-direction bw, iops, latency
# means/percentiles and the clat histogram the parser turns into an ECDF). Covers the paper's
# sequential and random I/O (Figs 5-7) and the fsync-IOPS study (fsync=1, direct=0).
#     sh runners/fio.sh OUTDIR rw=randread bs=4k size=64m runtime=10 iodepth=32 ioengine=libaio
# The scratch file is created in `directory` and removed afterwards.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare name=overhead rw=randread bs=4k size=64m runtime=10 iodepth=1 ioengine=psync \
    direct=1 numjobs=1 rwmixread=70 fsync=0 directory=/var/tmp/overhead-fio
rn_args "$@"
rn_require fio
rn_oneof rw read write randread randwrite rw randrw
rn_int runtime; rn_int iodepth; rn_int numjobs; rn_int rwmixread; rn_int fsync
rn_oneof direct 0 1
mkdir -p "$P_directory"
set -- fio --name="$P_name" --directory="$P_directory" --rw="$P_rw" --bs="$P_bs" \
    --size="$P_size" --runtime="$P_runtime" --time_based --iodepth="$P_iodepth" \
    --ioengine="$P_ioengine" --direct="$P_direct" --numjobs="$P_numjobs" \
    --rwmixread="$P_rwmixread" --fsync="$P_fsync" --group_reporting --output-format=json+
rn_begin fio fio fio "$(fio --version)" -- "$@"
rn_exec "$@"
rm -f "$P_directory/$P_name".*
rn_finish "$RN_STATUS"
