#!/usr/bin/env sh
# `npm run demo`: from a machine with only Node.js/npm to a streamed answer, with no upstream account.
set -e
cd "$(dirname "$0")/.."
if ! command -v bun >/dev/null 2>&1; then
  echo "Installing Bun (npm install -g bun)…"
  npm install -g --allow-scripts=bun bun >/dev/null 2>&1 || npm install -g bun
fi
bun install --frozen-lockfile >/dev/null
exec bun scripts/demo.ts "$@"
