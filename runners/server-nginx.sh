#!/bin/sh
# nginx serving one static file, for ApacheBench (runners/ab.sh) in the sysbench-suite study
# (not a runner: the campaign engine starts it as a benchmark's `server` inside the measured
# environment, and stops it with TERM). In the foreground (daemon off) with its own
# configuration, pid file, error log, temporary folders and document root in a private folder
# under /var/tmp (removed when it stops); no access log. The document is /file.bin, `size`
# bytes of text (the same bytes on every start: a repeated line cut to size); the seed study
# served 1600-byte responses (160000000 HTML bytes over 100000 requests).
#     sh server-nginx.sh listen=0.0.0.0 port=8080 size=1600 workers=auto
# workers: nginx's worker_processes (auto: one per CPU); connections: worker_connections
# (ab's largest concurrency is 20000). sendfile and tcp_nopush are on, as in Debian's own
# nginx.conf; keep-alive is nginx's default (75 s), so ab -k can reuse connections.
set -eu
listen=127.0.0.1 port=8080 size=1600 workers=auto connections=20480
die() { echo "server-nginx.sh: $*" >&2; exit 2; }
for arg; do
    case "$arg" in
        listen=*|port=*|size=*|workers=*|connections=*) eval "${arg%%=*}=\${arg#*=}" ;;
        *) die "unknown argument '$arg' (known: listen port size workers connections)" ;;
    esac
done
case "$port" in ''|*[!0-9]*) die "port='$port' is not a number" ;; esac
{ [ "$port" -ge 1 ] && [ "$port" -le 65535 ]; } || die "port=$port is not between 1 and 65535"
case "$size" in ''|*[!0-9]*) die "size='$size' is not a number of bytes" ;; esac
case "$workers" in auto) ;; ''|*[!0-9]*|0) die "workers='$workers' must be auto or a positive number" ;; esac
case "$connections" in ''|*[!0-9]*|0) die "connections='$connections' must be a positive number" ;; esac
case "$listen" in
    ''|*[!0-9A-Za-z.:_-]*) die "listen='$listen' is not an address" ;;
    *:*) address="[$listen]:$port" ;;  # IPv6
    *) address="$listen:$port" ;;
esac
command -v nginx >/dev/null 2>&1 || die "nginx is not installed here"

dir=$(mktemp -d /var/tmp/overhead-nginx.XXXXXX) || die "cannot make a folder under /var/tmp"
trap 'rm -rf "$dir"' EXIT
trap 'exit 143' TERM INT
mkdir "$dir/www" "$dir/tmp"
# workers run as nobody when the master is root: the document root must be readable
chmod 755 "$dir" "$dir/www"
yes 'overhead: a static file served by nginx to ApacheBench, the same bytes every time.' \
    | head -c "$size" > "$dir/www/file.bin"
chmod 644 "$dir/www/file.bin"
[ "$(wc -c < "$dir/www/file.bin")" -eq "$size" ] || die "could not write $size bytes to $dir/www/file.bin"
cat > "$dir/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes $workers;
worker_rlimit_nofile $((connections * 2 + 64));
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events {
    worker_connections $connections;
}
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    server_tokens off;
    default_type application/octet-stream;
    client_body_temp_path $dir/tmp/client_body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    server {
        listen $address;
        server_name _;
        root $dir/www;
        location = /file.bin { }
        location / { return 404; }
    }
}
CONF
# -e: the log nginx writes to before it has read its configuration (not /var/log/nginx)
set -- nginx -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf"
if ! "$@" -t > "$dir/check.log" 2>&1; then
    cat "$dir/check.log" >&2
    die "nginx rejected its configuration (listen=$listen port=$port workers=$workers)"
fi
"$@" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid"; exit 0' TERM INT
# nginx writes its pid file once it listens; a failed bind ends the master at once
i=0
until [ -s "$dir/nginx.pid" ]; do
    i=$((i + 1))
    if ! kill -0 "$pid" 2>/dev/null || [ "$i" -gt 200 ]; then
        kill -TERM "$pid" 2>/dev/null || true  # (nginx said why on stderr)
        die "nginx did not start listening on $address"
    fi
    sleep 0.05
done
echo "server-nginx.sh: ready on $address, /file.bin is $size bytes ($dir)"
set +e
wait "$pid"
status=$?
echo "server-nginx.sh: nginx exited with status $status" >&2
tail -n 20 "$dir/error.log" >&2 2>/dev/null
exit "$status"
