#!/usr/bin/env bash
# Start or stop throwaway Redis and PostgreSQL servers on loopback for the storage tests.
#   .ci/storage-servers.sh start <state-dir>   prints `export NAME=value` lines for the URLs
#   .ci/storage-servers.sh stop  <state-dir>
# PostgreSQL refuses to run as root, so its cluster is owned by and run as the postgres user.
set -euo pipefail
action="${1:?start|stop}"
state="${2:?state directory}"
redis_port="${PI_FOLD_TEST_REDIS_PORT:-6390}"
postgres_port="${PI_FOLD_TEST_POSTGRES_PORT:-5440}"
pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"

# The first port from $1 upward that nothing on loopback listens on.
free_port() {
  local port="$1"
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  echo "$port"
}

as_postgres() {
  if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$action" in
  start)
    command -v redis-server >/dev/null || { echo "redis-server missing: apt-get install -y redis-server" >&2; exit 1; }
    [ -x "$pg_bin/initdb" ] || { echo "postgresql missing: apt-get install -y postgresql" >&2; exit 1; }
    redis_port="$(free_port "$redis_port")"
    postgres_port="$(free_port "$postgres_port")"
    mkdir -p "$state/redis" "$state/postgres"
    redis-server --bind 127.0.0.1 --port "$redis_port" --daemonize yes --save '' --appendonly no \
      --dir "$state/redis" --pidfile "$state/redis/redis.pid" --logfile "$state/redis/redis.log" >&2
    if [ "$(id -u)" = "0" ]; then chown -R postgres:postgres "$state/postgres"; fi
    as_postgres "$pg_bin/initdb" -D "$state/postgres/data" -U postgres --auth=trust -E UTF8 >"$state/initdb.log" 2>&1
    as_postgres "$pg_bin/pg_ctl" -D "$state/postgres/data" -l "$state/postgres/server.log" -w \
      -o "-c listen_addresses=127.0.0.1 -p $postgres_port -k $state/postgres -c fsync=off" start >&2
    for _ in $(seq 1 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
    echo "export PI_FOLD_TEST_REDIS_URL=redis://127.0.0.1:$redis_port"
    echo "export PI_FOLD_TEST_POSTGRES_URL=postgresql://postgres@127.0.0.1:$postgres_port/postgres"
    ;;
  stop)
    if [ -f "$state/redis/redis.pid" ]; then kill "$(cat "$state/redis/redis.pid")" 2>/dev/null || true; fi
    if [ -d "$state/postgres/data" ]; then as_postgres "$pg_bin/pg_ctl" -D "$state/postgres/data" -m fast stop >&2 || true; fi
    ;;
  *) echo "usage: $0 start|stop <state-dir>" >&2; exit 2 ;;
esac
