#!/bin/sh
# PostgreSQL's pg_test_fsync: synchronous-write ops/s for every sync method and write size (the
# fsync-IOPS-through-NFS-and-KVM study). The test file lives in `directory` (the storage being
# measured) and is removed afterwards.
#     sh runners/pg_test_fsync.sh OUTDIR secs=5 directory=/mnt/nfs
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare secs=5 directory=/var/tmp/overhead-fsync
rn_args "$@"
rn_int secs
[ "$P_secs" -gt 0 ] || rn_die "secs must be at least 1"
bin=$(command -v pg_test_fsync || true)
if [ -z "$bin" ]; then  # Debian keeps it out of PATH, under the server's version
    for b in /usr/lib/postgresql/*/bin/pg_test_fsync; do if [ -x "$b" ]; then bin=$b; fi; done
fi
[ -n "$bin" ] || rn_die "pg_test_fsync is not installed on this host"
mkdir -p "$P_directory"
set -- "$bin" -s "$P_secs" -f "$P_directory/pg_test_fsync.out.$$"
rn_begin pg_test_fsync pg_test_fsync pg_test_fsync "$("$bin" --version)" -- "$@"
rn_exec "$@"
rm -f "$P_directory/pg_test_fsync.out.$$"
rn_finish "$RN_STATUS"
