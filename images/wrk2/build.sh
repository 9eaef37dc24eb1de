#!/bin/sh
# Build wrk2 (giltene/wrk2: wrk with a constant request rate, -R, and latency recorded from
# each request's intended start, so that a stalled server does not hide its own queueing:
# "coordinated omission") from the source in images/wrk2/src, against Debian's LuaJIT 2.1 and
# OpenSSL, into $PREFIX/bin/wrk2 (default /usr/local). No Debian package has it and its
# repository cannot be fetched here, so its source (Apache-2.0, LICENSE and NOTICE beside it)
# is kept in this folder, unmodified; its bundled LuaJIT is not (Debian's is used). What differs
# from its own Makefile: -DluaL_reg=luaL_Reg (LuaJIT 2.1's name for the type, as Debian's wrk
# package does) and -include sys/time.h (script.c calls gettimeofday without it). A stamp of the sources' and this script's hash skips the build
# when nothing changed (a warm make test or make demo does not rebuild).
#     sh images/wrk2/build.sh            # as root: /usr/local/bin/wrk2
#     PREFIX=$HOME/.local sh images/wrk2/build.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
PREFIX=${PREFIX:-/usr/local}
bin="$PREFIX/bin/wrk2"
stamp="$PREFIX/share/overhead/wrk2.sha256"
sum=$(cd "$here" && cat build.sh src/*.c src/*.h src/wrk.lua | sha256sum | cut -d' ' -f1)
if [ -x "$bin" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
  echo "wrk2: $bin is current"
  exit 0
fi
for need in cc luajit; do
  command -v "$need" > /dev/null || { echo "wrk2: $need is missing (make debian installs it)" >&2; exit 1; }
done
[ -f /usr/include/luajit-2.1/lua.h ] || { echo "wrk2: /usr/include/luajit-2.1/lua.h is missing (libluajit-5.1-dev)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
luajit -b "$here/src/wrk.lua" "$work/bytecode.o"
for f in wrk net ssl aprintf stats script units ae zmalloc http_parser tinymt64 hdr_histogram; do
  cc -std=c99 -O2 -D_REENTRANT -D_POSIX_C_SOURCE=200809L -D_BSD_SOURCE -D_DEFAULT_SOURCE \
     -DluaL_reg=luaL_Reg -include sys/time.h -I/usr/include/luajit-2.1 -c -o "$work/$f.o" "$here/src/$f.c"
done
cc -Wl,-E -o "$work/wrk2" "$work"/*.o -lluajit-5.1 -lpthread -lm -lcrypto -lssl -ldl
mkdir -p "$PREFIX/bin" "$(dirname "$stamp")"
install -m 0755 "$work/wrk2" "$bin"
echo "$sum" > "$stamp"
echo "wrk2: built $bin"
