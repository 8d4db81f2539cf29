# shellcheck shell=bash
# supervise NAME COMMAND...: run COMMAND (output appended to .local/logs/NAME.log, or to
# $SUPERVISE_LOG_DIR/NAME.log), restart it whenever it exits on its own, until this function's
# process gets TERM or INT; then TERM the command, wait for it, and exit. Meant to run in the
# background (`supervise web daphne ... &`), one per component, in the spirit of supervisord or
# honcho: a restart waits 1 s, doubling up to 30 s, reset after a minute of uptime, and writes
# one line to stdout and to the log.
supervise() {
  local name=$1; shift
  local log="${SUPERVISE_LOG_DIR:-.local/logs}/$name.log" child="" delay=1 started rc
  trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; [ -n "$child" ] && wait "$child" 2>/dev/null; exit 0' TERM INT
  while true; do
    started=$(date +%s)
    "$@" >> "$log" 2>&1 &
    child=$!
    wait "$child" && rc=0 || rc=$?
    child=""
    [ $(( $(date +%s) - started )) -ge 60 ] && delay=1
    echo "==> $(date '+%H:%M:%S') $name exited (code $rc); restarting in ${delay}s (log $log)" | tee -a "$log"
    sleep "$delay" & wait $! || true
    delay=$(( delay * 2 > 30 ? 30 : delay * 2 ))
  done
}
