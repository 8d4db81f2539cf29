#!/usr/bin/env bash
# Install and start what the tests need (PostgreSQL as the postgres user, Redis), run the
# suite against them, and stop what was started. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
WITH_COMPOSE=1 scripts/setup.sh
scripts/third_party_generators.sh  # the tests of the third-party CAPTCHA harness draw with them

# Static security checks (bandit rules, ruff.toml) before anything starts: a finding fails the run.
echo "==> ruff check"
.venv/bin/ruff check --quiet .

PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PG_PORT="${TEST_PG_PORT:-$(free_port)}"
REDIS_PORT="${TEST_REDIS_PORT:-$(free_port)}"
RUN_DIR=$(mktemp -d /tmp/venus-test.XXXXXX)
chmod 755 "$RUN_DIR"

as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi
}

cleanup() {
  set +e
  as_postgres "$PG_BIN/pg_ctl -D $RUN_DIR/pg -m immediate stop" >/dev/null 2>&1
  redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1
  rm -rf "$RUN_DIR"
}
trap cleanup EXIT

echo "==> starting PostgreSQL on 127.0.0.1:$PG_PORT and Redis on 127.0.0.1:$REDIS_PORT"
mkdir -p "$RUN_DIR/pg"
[ "$(id -u)" -eq 0 ] && chown -R postgres "$RUN_DIR"
as_postgres "$PG_BIN/initdb -D $RUN_DIR/pg -A trust -U postgres >/dev/null"
as_postgres "$PG_BIN/pg_ctl -D $RUN_DIR/pg -l $RUN_DIR/pg.log -w -o \"-p $PG_PORT -k $RUN_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200\" start >/dev/null"
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
  --logfile "$RUN_DIR/redis.log" >/dev/null

export DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/venus"
export REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
export VENUS_LOCAL_DIR="$RUN_DIR/local"
export DJANGO_SETTINGS_MODULE=venus_rpa.settings
# Tests serve pages, receivers and the practice site on 127.0.0.1: let runs and callbacks reach
# that address (not "localhost", not other loopback addresses; tests rely on the difference).
export VENUS_EGRESS_ALLOW_PRIVATE="${VENUS_EGRESS_ALLOW_PRIVATE:-127.0.0.1}"

echo "==> running tests"
.venv/bin/python -m pytest "$@"
