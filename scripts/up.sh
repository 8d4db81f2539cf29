#!/usr/bin/env bash
# Start the whole local stack in the foreground with demo data; Ctrl-C stops everything.
#   Redis 127.0.0.1:6379 (unless REDIS_URL is set) · web (ASGI) 127.0.0.1:8000 · practice site
#   127.0.0.1:8001 · Celery agent + android + default workers · beat · Flower 127.0.0.1:5555
#   (password: FLOWER_BASIC_AUTH=user:password, else one generated into .local/flower_basic_auth)
#   · an adb server 127.0.0.1:5037 (ADB_PORT) with one emulated Android phone on 127.0.0.1:5560
#   (PHONE_PORT; practice/android), registered as a shared device
# A component that dies is restarted (see supervise below); Redis keeps its data in .local/redis (AOF).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p .local/logs
PY=.venv/bin/python
export PRACTICE_PORT="${PRACTICE_PORT:-8001}" WEB_PORT="${WEB_PORT:-8000}" FLOWER_PORT="${FLOWER_PORT:-5555}"
export VENUS_PRACTICE_URL="${VENUS_PRACTICE_URL:-http://127.0.0.1:$PRACTICE_PORT}"
# Runs reach public hosts only; the practice site (and only its port: not Flower, not Redis) is
# the one local exception.
export VENUS_EGRESS_ALLOW_PRIVATE="${VENUS_EGRESS_ALLOW_PRIVATE:-127.0.0.1:$PRACTICE_PORT}"
# Android: one adb server and one emulated phone (no Android emulator runs here; docs/surfaces.md).
export ADB_PORT="${ADB_PORT:-5037}" PHONE_PORT="${PHONE_PORT:-5560}"
export VENUS_ADB_SERVERS="${VENUS_ADB_SERVERS:-127.0.0.1:$ADB_PORT}"

# Every component runs under a small supervisor (scripts/supervise.sh): restarted with a log
# line whenever it exits on its own.
pids=()
stop() {
  trap - INT TERM EXIT
  echo; echo "==> stopping"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 100); do
    alive=0; for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break; sleep 0.2
  done
  for pid in "${pids[@]}"; do pkill -KILL -P "$pid" 2>/dev/null || true; kill -KILL "$pid" 2>/dev/null || true; done
  echo "==> stopped"
}
trap 'stop; exit 0' INT TERM
trap stop EXIT

. scripts/supervise.sh

start() {  # name, command...
  local name=$1; shift
  : > ".local/logs/$name.log"
  supervise "$name" "$@" &
  pids+=($!)
  echo "    $name (supervised, log .local/logs/$name.log)"
}

if [ -z "${REDIS_URL:-}" ]; then
  export REDIS_URL="redis://127.0.0.1:6379/0"
  if ! redis-cli -p 6379 ping >/dev/null 2>&1; then
    # AOF persistence: queued runs' messages and live state survive a Redis restart.
    mkdir -p .local/redis
    start redis redis-server --port 6379 --bind 127.0.0.1 --dir "$PWD/.local/redis" --appendonly yes \
      --appendfsync everysec --save ''
    for _ in $(seq 50); do redis-cli -p 6379 ping >/dev/null 2>&1 && break; sleep 0.1; done
  fi
fi

echo "==> database"
$PY manage.py migrate --noinput -v0
$PY manage.py seed_demo

echo "==> static files"
# whitenoise serves the collected, compressed copies (settings: VENUS_STATIC_COLLECTED).
$PY manage.py collectstatic --noinput -v0
export VENUS_STATIC_COLLECTED=1

# Flower shows every task's arguments: never without a password, even on loopback.
if [ -z "${FLOWER_BASIC_AUTH:-}" ]; then
  if [ ! -s .local/flower_basic_auth ]; then
    (umask 077 && $PY -c 'import secrets; print("flower:" + secrets.token_urlsafe(18))' > .local/flower_basic_auth)
  fi
  FLOWER_BASIC_AUTH=$(cat .local/flower_basic_auth)
fi

echo "==> starting"
start practice $PY -m practice --host 127.0.0.1 --port "$PRACTICE_PORT"
start web .venv/bin/daphne -b 127.0.0.1 -p "$WEB_PORT" venus_rpa.asgi:application
start worker-agent .venv/bin/celery -A venus_rpa worker -Q agent --pool threads --concurrency 4 -n "agent@%h" --loglevel INFO
start worker-default .venv/bin/celery -A venus_rpa worker -Q default --pool threads --concurrency 4 -n "default@%h" --loglevel INFO
# The desktop surface: one Xvfb display with openbox, registered in the display pool, and a worker
# on the desktop queue (docs/surfaces.md). VENUS_DESKTOP_DISPLAY picks another display number.
export VENUS_DESKTOP_DISPLAY="${VENUS_DESKTOP_DISPLAY:-:99}"
start display $PY -m workers.envs.xdisplay --display "$VENUS_DESKTOP_DISPLAY" --size "${VENUS_DESKTOP_SIZE:-1280x800}"
$PY manage.py register_display "$VENUS_DESKTOP_DISPLAY" --size "${VENUS_DESKTOP_SIZE:-1280x800}"
start worker-desktop .venv/bin/celery -A venus_rpa worker -Q desktop --pool threads --concurrency 1 -n "desktop@%h" --loglevel INFO
start beat .venv/bin/celery -A venus_rpa beat --loglevel INFO

echo "==> android: adb server on 127.0.0.1:$ADB_PORT, emulated phone on 127.0.0.1:$PHONE_PORT"
start adb adb -P "$ADB_PORT" nodaemon server
# Wait for its port without an adb client call (a client would start a second, daemon server).
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$ADB_PORT") 2>/dev/null && break; sleep 0.2; done
start phone $PY -m practice.android --host 127.0.0.1 --port "$PHONE_PORT"
for _ in $(seq 100); do
  adb -P "$ADB_PORT" connect "127.0.0.1:$PHONE_PORT" 2>/dev/null | grep -q "connected to" && break; sleep 0.3
done
# Registered shared; the devices health check (beat) reconnects it if the phone or adb restarts.
$PY manage.py register_device "127.0.0.1:$PHONE_PORT" --adb-server "127.0.0.1:$ADB_PORT" \
  --apps '{"Venus Pay": "com.venus.practice", "Settings": "com.android.settings/.Settings"}'
$PY manage.py seed_android_demo
start worker-android .venv/bin/celery -A venus_rpa worker -Q android --pool threads --concurrency 2 -n "android@%h" --loglevel INFO
# Flower reads FLOWER_BASIC_AUTH from its environment (kept off the command line, unlike --basic-auth).
FLOWER_BASIC_AUTH="$FLOWER_BASIC_AUTH" start flower .venv/bin/celery -A venus_rpa flower --address=127.0.0.1 --port="$FLOWER_PORT"

cat <<MSG

Venus RPA is up:
  dashboard   http://127.0.0.1:$WEB_PORT/        (sign in as demo / venus-demo)
  API docs    http://127.0.0.1:$WEB_PORT/api/docs/
  admin       http://127.0.0.1:$WEB_PORT/admin/
  practice    $VENUS_PRACTICE_URL/               (demo / demo-password)
  Flower      http://127.0.0.1:$FLOWER_PORT/       (sign in as ${FLOWER_BASIC_AUTH%%:*} / ${FLOWER_BASIC_AUTH#*:})
  phone       127.0.0.1:$PHONE_PORT on the adb server 127.0.0.1:$ADB_PORT (adb -P $ADB_PORT devices)
Try:  .venv/bin/python manage.py run_automation demo-expense --wait
      .venv/bin/python manage.py run_automation demo-android-profile --wait   (Android)
Ctrl-C stops everything.
MSG
# The supervisors keep every component up; this waits until Ctrl-C (or TERM) stops them all.
while true; do sleep 3600 & wait $! || true; done
