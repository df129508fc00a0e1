#!/usr/bin/env sh
# `npm run demo`: from a machine with only Node.js/npm to a streamed answer, with no upstream account.
set -e
cd "$(dirname "$0")/.."
if ! command -v bun >/dev/null 2>&1; then
  echo "Installing Bun (npm install -g bun)…"
  npm install -g --allow-scripts=bun bun >/dev/null 2>&1 || npm install -g bun
fi
# Only what serving needs: the vendor CLIs and SDKs the tests drive are dev dependencies (over 1 GB); `npm test`
# installs those. A --production install never removes packages already there, so running the demo after the tests
# leaves them in place.
bun install --production --frozen-lockfile >/dev/null
exec bun scripts/demo.ts "$@"
