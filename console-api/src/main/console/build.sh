#!/bin/sh
# Builds the console into console-api/target/classes/console with the machine's Node and npm (run by
# Maven's exec plugin in generate-resources). npm ci runs only when package-lock.json changed since
# the last install here, so a rebuild of the jar does not reinstall 100 MB of node_modules.
set -eu
cd "$(dirname "$0")"
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "ERROR: building the web console needs Node.js (20 or newer) and npm: install them," >&2
  echo "       e.g. 'apt-get install nodejs npm', then build again." >&2
  exit 1
fi
stamp=node_modules/.lodestar-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
npm run --silent build
