#!/usr/bin/env sh
# `npm run demo`: from a machine with only Node.js/npm to a streamed answer, with no upstream account.
set -e
cd "$(dirname "$0")/.."

# Bun from npm, when it is missing. npm's own output is shown (each download as it happens), a failure stops here
# at once with npm's reason, and nothing is retried for minutes. A user who may not write npm's global folder (a
# system Node, not root) gets Bun in ~/.bun, where Bun's own installer puts it.
install_bun() {
  prefix="$(npm prefix -g)"
  if [ -w "$prefix/lib" ] && [ -w "$prefix/bin" ]; then
    echo "Installing Bun with npm into $prefix (npm install -g bun)…"
    target="$prefix"
  else
    target="$HOME/.bun"
    echo "npm's global folder $prefix is not writable by $(id -un): installing Bun into $target instead" \
      "(npm install -g --prefix $target bun)…"
    mkdir -p "$target"
  fi
  if ! npm install -g --prefix "$target" --allow-scripts=bun --loglevel=http --no-fund --no-audit \
    --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 --fetch-timeout=30000 bun; then
    echo "npm run demo: installing Bun failed (npm's reason is above). Install Bun yourself and run this again:" >&2
    echo "  npm install -g --prefix ~/.bun bun && export PATH=~/.bun/bin:\$PATH" >&2
    exit 1
  fi
  PATH="$target/bin:$PATH"
  if ! command -v bun >/dev/null 2>&1; then
    echo "npm run demo: npm installed Bun into $target, but $target/bin/bun does not run" >&2
    exit 1
  fi
  [ "$target" = "$HOME/.bun" ] && echo "Bun is in ~/.bun/bin: add it to your PATH (export PATH=~/.bun/bin:\$PATH) to run bun yourself."
  return 0
}

if ! command -v bun >/dev/null 2>&1 && [ -x "$HOME/.bun/bin/bun" ]; then PATH="$HOME/.bun/bin:$PATH"; fi
if ! command -v bun >/dev/null 2>&1; then install_bun; fi
# Only what serving needs: the vendor CLIs and SDKs the tests drive are dev dependencies (over 1 GB); `npm test`
# installs those. A --production install never removes packages already there, so running the demo after the tests
# leaves them in place.
echo "Installing the gateway's dependencies (bun install --production)…"
bun install --production --frozen-lockfile >/dev/null
exec bun scripts/demo.ts "$@"
