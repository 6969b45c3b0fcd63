#!/usr/bin/env bash
# Runs the conformance suite (run.js, the npm client up-bank-api) against
# `bankmirror simulator --public-url https://api.up.com.au/api/v1`.
# Needs `npm ci` here first. Exits with the suite's status.
set -euo pipefail
cd "$(dirname "$0")"

bin=$(mktemp -d)/bankmirror
out=$(mktemp)
trap 'kill "$sim" 2>/dev/null || true; wait "$sim" 2>/dev/null || true; rm -rf "$(dirname "$bin")" "$out"' EXIT

go build -tags sqlite_fts5 -o "$bin" ../cmd/bankmirror
"$bin" simulator --listen 127.0.0.1:0 --transactions 300 --seed 1 --rate-limit 0 \
  --public-url https://api.up.com.au/api/v1 >"$out" &
sim=$!

# Wait for the start lines (the token line is the last one).
for _ in $(seq 100); do
  grep -q '^BANKMIRROR_TOKEN=' "$out" && break
  kill -0 "$sim" 2>/dev/null || { echo "conformance: the simulator exited" >&2; exit 1; }
  sleep 0.1
done
val() { sed -n "s/^$1=//p" "$out"; }
SIM_API_URL=$(val BANKMIRROR_API_URL) SIM_TOKEN=$(val BANKMIRROR_TOKEN) \
SIM_CONTROL_URL=$(val BANKMIRROR_SIM_CONTROL_URL) SIM_CONTROL_TOKEN=$(val BANKMIRROR_SIM_CONTROL_TOKEN) \
  node run.js
