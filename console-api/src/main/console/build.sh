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
# Vite 7 needs Node.js 20.19 or newer (Debian 12's own nodejs package is 18): say so rather than
# let the build fail somewhere inside it
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  echo "ERROR: building the web console needs Node.js 20.19 or newer; this is $(node --version)." >&2
  echo "       Install a newer Node.js (e.g. from NodeSource or the nodejs.org builds), or build" >&2
  echo "       the server without the console: mvn -Dconsole.skip=true package" >&2
  exit 1
fi
stamp=node_modules/.lodestar-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
npm run --silent build
