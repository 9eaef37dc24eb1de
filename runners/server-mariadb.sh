#!/bin/sh
# MariaDB for the MySQL benchmark (not a runner: the campaign engine starts it as a benchmark's
# `server` inside the measured environment, and stops it with TERM). The paper's settings:
# InnoDB with a buffer pool large enough to cache every table the run reads. A fresh data
# directory on each start, in `datadir` (under /var/tmp: in a container that is the volume or
# the overlay filesystem of the storage variant).
#     sh server-mariadb.sh listen=0.0.0.0 port=3306 buffer_pool=256M password_file=/path/sb.cnf
# The benchmark user's password is read from password_file, a sysbench option file holding a
# `mysql-password=...` line (the client reads the same file with --config-file): it never
# appears on a command line, and the SQL that sets it is removed once the server answers.
set -eu
listen=127.0.0.1 port=3306 datadir=/var/tmp/overhead-mariadb buffer_pool=256M user=sbtest
db=sbtest password_file="" max_connections=1000 wait=120
die() { echo "server-mariadb.sh: $*" >&2; exit 2; }
for arg; do
    case "$arg" in
        listen=*|port=*|datadir=*|buffer_pool=*|user=*|db=*|password_file=*|max_connections=*|wait=*)
            eval "${arg%%=*}=\${arg#*=}" ;;
        *) die "unknown argument '$arg'" ;;
    esac
done
for n in "$user" "$db"; do
    case "$n" in ""|*[!A-Za-z0-9_]*) die "user and db must be letters, digits, _ ('$n')" ;; esac
done
[ -r "$password_file" ] || die "password_file '$password_file' is not readable"
password=$(sed -n 's/^mysql-password=//p' "$password_file" | head -n 1)
[ -n "$password" ] || die "$password_file has no mysql-password= line"
case "$password" in *"'"*|*\\*) die "the password must not contain ' or \\" ;; esac
command -v mariadbd >/dev/null 2>&1 || die "mariadbd is not installed here"

rm -rf "$datadir"
mkdir -p "$datadir"
umask 077
cat > "$datadir/my.cnf" <<CNF
[mysqld]
user=root
datadir=$datadir/data
socket=$datadir/mysqld.sock
pid-file=$datadir/mysqld.pid
port=$port
bind-address=$listen
skip-name-resolve
default-storage-engine=InnoDB
innodb_buffer_pool_size=$buffer_pool
max_connections=$max_connections
init-file=$datadir/init.sql
CNF
mariadb-install-db --defaults-file="$datadir/my.cnf" --auth-root-authentication-method=socket \
    --skip-test-db > "$datadir/install.log" 2>&1 || { cat "$datadir/install.log" >&2; exit 1; }
# printf is a shell builtin: the password reaches the file without any process's argv
printf "CREATE DATABASE IF NOT EXISTS %s;\nCREATE USER IF NOT EXISTS '%s'@'%%' IDENTIFIED BY '%s';\nGRANT ALL ON %s.* TO '%s'@'%%';\n" \
    "$db" "$user" "$password" "$db" "$user" > "$datadir/init.sql"
mariadbd --defaults-file="$datadir/my.cnf" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid"; rm -f "$datadir/init.sql"; exit 0' TERM INT
i=0
until mariadb-admin --socket="$datadir/mysqld.sock" ping > /dev/null 2>&1; do
    i=$((i + 1))
    if [ "$i" -gt $((wait * 2)) ] || ! kill -0 "$pid" 2>/dev/null; then
        rm -f "$datadir/init.sql"; kill -TERM "$pid" 2>/dev/null; die "mariadbd did not answer"
    fi
    sleep 0.5
done
rm -f "$datadir/init.sql"
echo "server-mariadb.sh: ready on $listen:$port (buffer pool $buffer_pool)"
wait "$pid"
