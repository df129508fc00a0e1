#!/usr/bin/env sh
# `npm run format`: Biome's formatter over the whole tree (biome.json: 2 spaces, single quotes, no semicolons, lines of
# at most 140 characters). Once the tree has been formatted in one commit, scripts/test.sh checks it on every run (its
# "formatting" line). `sh scripts/format.sh --check` only reports what it would change, and fails when there is any.
set -e
cd "$(dirname "$0")/.."
if [ "$1" = "--check" ]; then exec ./node_modules/.bin/biome format .; fi
exec ./node_modules/.bin/biome format --write .
