#!/usr/bin/env bash
# Hand-run check of `contentapi import` / `contentapi export` against the reference Strapi (it cannot
# run in `make test`). From the project root, after setup.sh (same REFERENCE_DIR; PORT as for start.sh):
#   bash bench/reference/transfer_check.sh
# 1. Strapi on a fresh database is seeded (transfer_content.py seed) and exports an archive;
# 2. contentapi (SQLite, in a temporary folder) imports it: its REST answers must equal Strapi's;
# 3. contentapi exports, Strapi imports that into another fresh database: its answers must equal the
#    first ones (component ids aside: Strapi's import numbers components anew).
# Uses databases strapi_transfer_src and strapi_transfer_dst (emptied); stops the reference server.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/bench/reference"
REFERENCE_DIR="${REFERENCE_DIR:-$HOME/.cache/strapi-reference}"
export REFERENCE_DIR
PORT="${PORT:-1338}"; export PORT
CA_PORT="${CA_PORT:-1341}"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
WORK="$(mktemp -d)"
CONTENT="$HERE/transfer_content.py"
echo "work folder: $WORK"

fresh_db() {   # empty (or create) a database for Strapi
  PGPASSWORD="${DATABASE_PASSWORD:-postgres}" psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$1'" | grep -q 1 \
    || PGPASSWORD="${DATABASE_PASSWORD:-postgres}" createdb -h 127.0.0.1 -U postgres "$1"
  bash "$HERE/reset-db.sh" "$1"
}

bash "$HERE/stop.sh" >/dev/null
# ---- 1. Strapi seeds and exports
fresh_db strapi_transfer_src
bash "$HERE/start.sh" strapi_transfer_src
"$PY" "$CONTENT" seed "http://127.0.0.1:$PORT" "$(cat "$REFERENCE_DIR/TOKEN")"
"$PY" "$CONTENT" read "http://127.0.0.1:$PORT" "$(cat "$REFERENCE_DIR/TOKEN")" > "$WORK/strapi.json"
bash "$HERE/stop.sh"
(cd "$REFERENCE_DIR" && DATABASE_NAME=strapi_transfer_src npx strapi export --no-encrypt -f "$WORK/strapi" >/dev/null)
echo "strapi export: $WORK/strapi.tar.gz"

# ---- 2. contentapi imports Strapi's archive
export CONTENTAPI_DATABASE_URL="sqlite+aiosqlite:///$WORK/contentapi.db"
export CONTENTAPI_CONTENT_TYPES_DIR="${MODELS_DIR:-$ROOT/content-types}"
export CONTENTAPI_UPLOADS_DIR="$WORK/uploads" CONTENTAPI_LOCALES=en,fr
export CONTENTAPI_ADMIN_TOKEN="transfer-check-$RANDOM$RANDOM"
"$PY" -m contentapi import "$WORK/strapi.tar.gz"
"$PY" -m contentapi serve --port "$CA_PORT" --workers 1 > "$WORK/contentapi.log" 2>&1 &
CA_PID=$!
trap 'kill $CA_PID 2>/dev/null || true' EXIT
until curl -s -o /dev/null "http://127.0.0.1:$CA_PORT/_health"; do sleep 0.5; done
"$PY" "$CONTENT" read "http://127.0.0.1:$CA_PORT" "$CONTENTAPI_ADMIN_TOKEN" > "$WORK/contentapi.json"
status=0
"$PY" "$CONTENT" same "$WORK/strapi.json" "$WORK/contentapi.json" || status=1

# ---- 3. contentapi exports, Strapi imports
"$PY" -m contentapi export "$WORK/contentapi.tar.gz"
kill $CA_PID
fresh_db strapi_transfer_dst
(cd "$REFERENCE_DIR" && DATABASE_NAME=strapi_transfer_dst npx strapi import --force -f "$WORK/contentapi.tar.gz" >/dev/null)
bash "$HERE/start.sh" strapi_transfer_dst
"$PY" "$CONTENT" read "http://127.0.0.1:$PORT" "$(cat "$REFERENCE_DIR/TOKEN")" > "$WORK/strapi-imported.json"
bash "$HERE/stop.sh"
"$PY" "$CONTENT" same "$WORK/strapi.json" "$WORK/strapi-imported.json" --no-component-ids || status=1
[ "$status" = 0 ] && echo "transfer check: both directions read back the same" || echo "transfer check: FAILED (snapshots in $WORK)"
exit "$status"
