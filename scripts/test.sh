#!/usr/bin/env sh
# `npm test`: everything the suite needs, then `bun test`. Safe to run again: each step is skipped when done.
#   - Bun from npm when missing; every dependency, dev ones included (official SDKs and CLIs used as test clients);
#   - Debian's Chromium for the console's browser tests (never a downloaded browser);
#   - PostgreSQL answering on 127.0.0.1:5432 (trust auth, database `test`; TOLLGATE_TEST_POSTGRES overrides): the
#     machine's own cluster is started when it is installed but stopped (as root), else the run stops here and says so.
#   - then the lint (`npm run lint`: biome.json, scripts/dead-exports.ts): any finding fails the run before a test starts.
set -e
cd "$(dirname "$0")/.."
if ! command -v bun >/dev/null 2>&1; then
  npm install -g --allow-scripts=bun bun >/dev/null 2>&1 || npm install -g bun
fi
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium for the browser tests…"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || echo "warning: could not install chromium"
fi
bun install --frozen-lockfile >/dev/null
if ! bun scripts/check-postgres.ts 2>/dev/null; then
  if [ -z "$TOLLGATE_TEST_POSTGRES" ] && [ "$(id -u)" = 0 ] && command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    version="$(ls /etc/postgresql | sort -n | tail -1)"
    echo "Starting the machine's PostgreSQL ($version main)…"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || true
    tries=0
    until bun scripts/check-postgres.ts 2>/dev/null || [ $tries -ge 20 ]; do tries=$((tries + 1)); sleep 0.5; done
  fi
  if ! bun scripts/check-postgres.ts; then
    echo "npm test needs PostgreSQL: the store contract suite runs against it. Start it (Debian: apt-get install postgresql," >&2
    echo "then as root: pg_ctlcluster --skip-systemctl-redirect \$(ls /etc/postgresql) main start), allow trust auth from" >&2
    echo "127.0.0.1 and create the database: createdb -U postgres test. Or point TOLLGATE_TEST_POSTGRES at another server." >&2
    exit 1
  fi
fi
# Lint first (biome.json: unused variables and imports, floating and misused promises; exports nothing imports,
# scripts/dead-exports.ts): a finding fails the run.
bun run lint
# Formatting (biome.json: lines of at most 140 characters; `npm run format` fixes it): a difference fails the run.
sh scripts/format.sh --check >/dev/null || { echo "The code is not formatted: run npm run format" >&2; exit 1; }
# 20 s a test, not 5: many tests start servers or CLIs, which on a loaded 2-core machine take longer than 5 s.
exec bun test --timeout 20000 "$@"
