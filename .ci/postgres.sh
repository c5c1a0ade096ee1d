#!/bin/sh
# Starts a throwaway PostgreSQL cluster (Debian's `postgresql` package) in a new temporary
# directory, listening on loopback only, trusting local connections, and prints two lines:
#   DAMA_TEST_POSTGRES=postgres://dama@127.0.0.1:PORT/dama
#   DAMA_TEST_POSTGRES_DIR=DIR
# Stop it with: .ci/postgres.sh stop DIR   (stops the server and deletes DIR).
# fsync is off (a throwaway cluster; DAMA_PG_FSYNC=on for measurements).
# initdb refuses to run as root: as root, the cluster belongs to the `postgres` user.
set -eu
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ]; then
    echo "no PostgreSQL in /usr/lib/postgresql: apt-get install postgresql" >&2
    exit 2
fi
as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
if [ "${1:-}" = stop ]; then
    as_owner "$bin/pg_ctl" -D "$2/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$2"
    exit 0
fi
dir=$(mktemp -d /tmp/dama-pg.XXXXXX)
chmod 755 "$dir"
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
port=${DAMA_PG_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')}
as_owner "$bin/initdb" -D "$dir/data" -U dama -A trust --no-sync >/dev/null
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=${DAMA_PG_FSYNC:-off} -c max_connections=200" \
    start >/dev/null
as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U dama dama
echo "DAMA_TEST_POSTGRES=postgres://dama@127.0.0.1:$port/dama"
echo "DAMA_TEST_POSTGRES_DIR=$dir"
