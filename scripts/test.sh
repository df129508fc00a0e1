#!/usr/bin/env sh
# `npm test`: everything the suite needs, then `bun test`. Safe to run again: each step is skipped when done.
#   - Bun from npm when missing; the dependencies (official SDKs and CLIs used as test clients);
#   - Debian's Chromium for the console's browser tests (never a downloaded browser);
#   - the machine's PostgreSQL (127.0.0.1:5432, trust auth, database `test`) is used as it is.
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
exec bun test "$@"
