#!/usr/bin/env bash
# Stops the Directus started by start.sh: the process of its pid file, nothing else.
set -uo pipefail
DIRECTUS_DIR="${DIRECTUS_DIR:-$HOME/.cache/directus-reference}"
PIDFILE="$DIRECTUS_DIR/directus.pid"
if [ ! -f "$PIDFILE" ]; then echo "no $PIDFILE: Directus is not running"; exit 0; fi
PID="$(cat "$PIDFILE")"
if kill -0 "$PID" 2>/dev/null; then
  kill -TERM "$PID"
  for _ in $(seq 1 40); do kill -0 "$PID" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$PID" 2>/dev/null; then echo "pid $PID still there after TERM: KILL"; kill -KILL "$PID"; fi
  echo "Directus stopped (pid $PID)"
else
  echo "pid $PID was not running"
fi
rm -f "$PIDFILE"
