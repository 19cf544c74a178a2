#!/usr/bin/env bash
# Builds the reference Strapi v4 (4.25) server in $REFERENCE_DIR (default ~/.cache/strapi-reference) from
# the models in $MODELS_DIR (default ./content-types, run from the project root). `make bench` and
# `make diff` call it with their own models; by hand: bash bench/reference/setup.sh
# Idempotent: re-running rewrites configs/models/bootstrap and runs `npm install` (a no-op when up to date).
# MODELS_DIR may also be a Strapi project's own `src/` folder (or the project folder holding it):
# its `api/*/content-types/*/schema.json`, `components/` and `extensions/` are copied as they are
# (core routes/controllers/services written where the project has none; its JavaScript is not
# copied). CUSTOM_FIELDS ("plugin.Name:type ...", e.g. "ckeditor.CKEditor:richtext") registers
# custom fields the models use, each in a local plugin of that name that does only this (what the
# real plugin's server side does; its npm package and admin UI are not installed).
# Needs: node 20, npm, the npm registry. Downloads nothing but npm packages.
set -euo pipefail

REFERENCE_DIR="${REFERENCE_DIR:-$HOME/.cache/strapi-reference}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODELS="${MODELS_DIR:-$PWD/content-types}"
MODELS="$(cd "$MODELS" && pwd)"
[ -d "$MODELS/src/api" ] && MODELS="$MODELS/src"   # a Strapi project folder: its src/
CUSTOM_FIELDS="${CUSTOM_FIELDS:-}"
LOCALES="${LOCALES:-fr}"   # created at start-up besides the default en (codes, space-separated)
STRAPI_VERSION="${STRAPI_VERSION:-4.25.24}"

echo "reference dir: $REFERENCE_DIR   models: $MODELS   strapi: $STRAPI_VERSION"
mkdir -p "$REFERENCE_DIR"/{config,src/api,src/components,src/extensions,public/uploads,database/migrations}
cd "$REFERENCE_DIR"

# ---------------------------------------------------------------- package.json
cat > package.json <<JSON
{
  "name": "strapi-reference",
  "private": true,
  "version": "0.1.0",
  "description": "Strapi v4 reference server",
  "scripts": {
    "start": "strapi start",
    "develop": "strapi develop",
    "strapi": "strapi"
  },
  "dependencies": {
    "@strapi/strapi": "$STRAPI_VERSION",
    "@strapi/plugin-users-permissions": "$STRAPI_VERSION",
    "@strapi/plugin-i18n": "$STRAPI_VERSION",
    "@strapi/plugin-graphql": "$STRAPI_VERSION",
    "pg": "8.11.3",
    "react": "^18.2.0",
    "react-dom": "^18.2.0",
    "react-router-dom": "5.3.4",
    "styled-components": "5.3.11"
  },
  "overrides": {
    "sharp": "0.33.5"
  },
  "engines": { "node": ">=18.0.0 <=20.x.x", "npm": ">=6.0.0" },
  "strapi": { "uuid": false, "telemetryDisabled": true }
}
JSON

# ---------------------------------------------------------------- .env (secrets generated once, kept on re-run)
if [ ! -f .env ]; then
  rnd() { node -e "console.log(require('crypto').randomBytes(16).toString('base64'))"; }
  cat > .env <<ENV
HOST=127.0.0.1
PORT=1338
APP_KEYS=$(rnd),$(rnd),$(rnd),$(rnd)
API_TOKEN_SALT=$(rnd)
ADMIN_JWT_SECRET=$(rnd)
TRANSFER_TOKEN_SALT=$(rnd)
JWT_SECRET=$(rnd)
DATABASE_HOST=127.0.0.1
DATABASE_PORT=5432
DATABASE_NAME=strapi_ref
DATABASE_USERNAME=postgres
DATABASE_PASSWORD=postgres
STRAPI_TELEMETRY_DISABLED=true
STRAPI_DISABLE_UPDATE_NOTIFICATION=true
ENV
fi

# ---------------------------------------------------------------- config/
cat > config/server.js <<'JS'
module.exports = ({ env }) => ({
  host: env('HOST', '127.0.0.1'),
  port: env.int('PORT', 1338),
  app: { keys: env.array('APP_KEYS') },
  webhooks: { populateRelations: env.bool('WEBHOOKS_POPULATE_RELATIONS', false) },
});
JS

cat > config/admin.js <<'JS'
module.exports = ({ env }) => ({
  serveAdminPanel: false,          // admin UI is not built nor served (API only)
  autoOpen: false,
  auth: { secret: env('ADMIN_JWT_SECRET') },
  apiToken: { salt: env('API_TOKEN_SALT') },
  transfer: { token: { salt: env('TRANSFER_TOKEN_SALT') } },
  flags: { nps: false, promoteEE: false },
});
JS

cat > config/database.js <<'JS'
module.exports = ({ env }) => ({
  connection: {
    client: 'postgres',
    connection: {
      host: env('DATABASE_HOST', '127.0.0.1'),
      port: env.int('DATABASE_PORT', 5432),
      database: env('DATABASE_NAME', 'strapi_ref'),
      user: env('DATABASE_USERNAME', 'postgres'),
      password: env('DATABASE_PASSWORD', 'postgres'),
      schema: env('DATABASE_SCHEMA', 'public'),
      ssl: false,
    },
    pool: { min: env.int('DATABASE_POOL_MIN', 2), max: env.int('DATABASE_POOL_MAX', 10) },
    acquireConnectionTimeout: env.int('DATABASE_CONNECTION_TIMEOUT', 60000),
  },
});
JS

# same values as the create-strapi-app v4 template (and contentapi's CONTENTAPI_REST_* defaults)
cat > config/api.js <<'JS'
module.exports = {
  rest: {
    defaultLimit: 25,
    maxLimit: 100,
    withCount: true,
  },
};
JS

cat > config/middlewares.js <<'JS'
module.exports = [
  'strapi::logger',
  'strapi::errors',
  'strapi::security',
  'strapi::cors',
  'strapi::poweredBy',
  'strapi::query',
  'strapi::body',
  'strapi::session',
  'strapi::favicon',
  'strapi::public',
];
JS

cat > config/plugins.js <<'JS'
module.exports = ({ env }) => ({
  'users-permissions': { config: { jwtSecret: env('JWT_SECRET') } },
  graphql: {
    enabled: true,
    config: {
      endpoint: '/graphql',
      shadowCRUD: true,
      playgroundAlways: false,
      depthLimit: 10,                 // (amountLimit from the docs is not read by plugin-graphql 4.25)
      generateArtifacts: env.bool('GRAPHQL_ARTIFACTS', false),
      artifacts: { schema: true, typegen: false },
      apolloServer: { introspection: true },
    },
  },
});
JS

# ---------------------------------------------------------------- custom fields: one local plugin each
rm -rf src/plugins
for spec in $CUSTOM_FIELDS; do
  plugin="${spec%%.*}"; rest="${spec#*.}"; field="${rest%%:*}"; type="${rest##*:}"
  mkdir -p "src/plugins/$plugin"
  [ -f "src/plugins/$plugin/package.json" ] || printf '{ "name": "%s", "version": "0.0.0", "strapi": { "kind": "plugin", "name": "%s" } }\n' "$plugin" "$plugin" > "src/plugins/$plugin/package.json"
  [ -f "src/plugins/$plugin/strapi-server.js" ] || printf "'use strict';\nmodule.exports = { register({ strapi }) {\n" > "src/plugins/$plugin/strapi-server.js"
  printf "  strapi.customFields.register({ name: '%s', plugin: '%s', type: '%s' });\n" "$field" "$plugin" "$type" >> "src/plugins/$plugin/strapi-server.js"
  grep -q "'$plugin'" config/plugins.js || sed -i "s#^module.exports = ({ env }) => ({#&\n  '$plugin': { enabled: true, resolve: './src/plugins/$plugin' },#" config/plugins.js
done
for d in src/plugins/*/; do [ -f "$d/strapi-server.js" ] && echo "} };" >> "$d/strapi-server.js"; done

# ---------------------------------------------------------------- bootstrap: locales + full-access API token
node -e "console.log(JSON.stringify({ locales: process.argv.slice(1) }))" $LOCALES > config/reference-locales.json
cat > src/index.js <<'JS'
'use strict';
const fs = require('fs');
const path = require('path');

const TOKEN_NAME = 'reference-full-access';

module.exports = {
  register(/* { strapi } */) {},

  async bootstrap({ strapi }) {
    // --- i18n: the locales of config/reference-locales.json (LOCALES of setup.sh) besides the default en
    const locales = strapi.plugin('i18n').service('locales');
    const wanted = JSON.parse(fs.readFileSync(path.join(strapi.dirs.app.root, 'config', 'reference-locales.json'), 'utf8')).locales;
    for (const code of wanted) {
      if (!(await locales.findByCode(code))) {
        await locales.create({ code, name: code === 'fr' ? 'French (fr)' : code });
        strapi.log.info(`[reference] created locale ${code}`);
      }
    }

    // --- full-access API token, secret written to TOKEN file
    const tokenFile = process.env.REFERENCE_TOKEN_FILE || path.join(strapi.dirs.app.root, 'TOKEN');
    const tokens = strapi.service('admin::api-token');
    const existing = await tokens.getByName(TOKEN_NAME);
    let secret = null;
    if (existing && fs.existsSync(tokenFile)) {
      const onDisk = fs.readFileSync(tokenFile, 'utf8').trim();
      const row = await strapi.query('admin::api-token').findOne({ where: { id: existing.id } });
      if (onDisk && row && row.accessKey === tokens.hash(onDisk)) secret = onDisk; // still valid: keep
    }
    if (!secret) {
      if (existing) await tokens.revoke(existing.id);
      const created = await tokens.create({
        name: TOKEN_NAME,
        description: 'full-access token of the reference server',
        type: 'full-access',
        lifespan: null,
      });
      secret = created.accessKey;
      fs.writeFileSync(tokenFile, secret + '\n');
      strapi.log.info(`[reference] created API token ${TOKEN_NAME}, secret written to ${tokenFile}`);
    } else {
      strapi.log.info(`[reference] API token ${TOKEN_NAME} still valid (${tokenFile})`);
    }
  },
};
JS

# ---------------------------------------------------------------- models
rm -rf src/api/* src/components/* src/extensions/*
core_files() {   # core router/controller/service of api::$1.$2 under $3, where the project has none
  local api="$1" name="$2" d="$3"
  mkdir -p "$d/routes" "$d/controllers" "$d/services"
  [ -f "$d/routes/$name.js" ] || printf "'use strict';\nconst { factories } = require('@strapi/strapi');\nmodule.exports = factories.createCoreRouter('api::%s.%s');\n" "$api" "$name" > "$d/routes/$name.js"
  [ -f "$d/controllers/$name.js" ] || printf "'use strict';\nconst { factories } = require('@strapi/strapi');\nmodule.exports = factories.createCoreController('api::%s.%s');\n" "$api" "$name" > "$d/controllers/$name.js"
  [ -f "$d/services/$name.js" ] || printf "'use strict';\nconst { factories } = require('@strapi/strapi');\nmodule.exports = factories.createCoreService('api::%s.%s');\n" "$api" "$name" > "$d/services/$name.js"
}
if [ -d "$MODELS/api" ]; then
  # Strapi's own layout: schemas, components and extensions as they are
  for f in "$MODELS"/api/*/content-types/*/schema.json; do
    [ -f "$f" ] || continue
    name="$(basename "$(dirname "$f")")"; api="$(basename "$(dirname "$(dirname "$(dirname "$f")")")")"
    mkdir -p "src/api/$api/content-types/$name"
    cp "$f" "src/api/$api/content-types/$name/schema.json"
    core_files "$api" "$name" "src/api/$api"
  done
  [ -d "$MODELS/components" ] && cp -R "$MODELS/components/." src/components/
  if [ -d "$MODELS/extensions" ]; then
    (cd "$MODELS/extensions" && find . -name '*.json') | while read -r f; do
      mkdir -p "src/extensions/$(dirname "$f")"; cp "$MODELS/extensions/$f" "src/extensions/$f"
    done
  fi
else
for f in "$MODELS"/*.json "$MODELS"/content-types/*.json; do
  [ -f "$f" ] || continue
  name="$(basename "$f" .json)"
  d="src/api/$name"
  mkdir -p "$d/content-types/$name"
  cp "$f" "$d/content-types/$name/schema.json"
  core_files "$name" "$name" "$d"
done
# components: $MODELS/components/<category>/<name>.json
for f in "$MODELS"/components/*/*.json "$MODELS"/content-types/components/*/*.json; do
  [ -f "$f" ] || continue
  cat="$(basename "$(dirname "$f")")"
  mkdir -p "src/components/$cat"
  cp "$f" "src/components/$cat/$(basename "$f")"
done
fi
echo "models:"; find src/api src/components src/extensions -name '*.json' | sort

# ---------------------------------------------------------------- install
t0=$(date +%s)
npm install --no-audit --no-fund --loglevel=error
echo "npm install took $(( $(date +%s) - t0 ))s"
node -e "for (const p of ['@strapi/strapi','@strapi/plugin-graphql','@strapi/plugin-i18n','@strapi/plugin-users-permissions','@strapi/plugin-upload','sharp','pg']) console.log(p, require(p + '/package.json').version)"
echo "setup done: $REFERENCE_DIR"
