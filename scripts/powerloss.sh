#!/usr/bin/env bash
# Power-cut table: aofserver and redis-server side by side, with their data
# directory on crashfs (cmd/crashfs), for appendfsync always/everysec/no ×
# 1/8 clients, plus cuts during BGREWRITEAOF and at the manifest swap
# (strict mode). Runs TestPowerLoss in cmd/crashfs with the full matrix
# ("go test -short ./cmd/crashfs" runs a short subset) and prints the table.
# Needs root (or fusermount3), /dev/fuse and /usr/bin/redis-server.
#
#   scripts/powerloss.sh              # build aofserver from this tree
#   AOFSERVER_BIN=/path/aofserver scripts/powerloss.sh
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${AOFSERVER_BIN:-}" ]; then
  echo "== go build ./cmd/server"
  go build -o "$tmp/aofserver" ./cmd/server
  AOFSERVER_BIN="$tmp/aofserver"
fi
export AOFSERVER_BIN CRASHFS_POWERLOSS=full

echo "== TestPowerLoss (full matrix, about 1.5 min)"
start=$(date +%s)
rc=0
go test -count=1 -timeout 10m -run '^TestPowerLoss$' -v ./cmd/crashfs >"$tmp/log" 2>&1 || rc=$?
grep -E -- '^\s*--- (PASS|FAIL)|^\s+powerloss_test.go:[0-9]+: (appendfsync|.* did not)' "$tmp/log" || true
echo
echo "== power-cut table ($(( $(date +%s) - start )) s)"
# The final table: the lines after "power-cut table" that start with "|".
awk '/power-cut table/ {on=1; next} on && /^[[:space:]]*\|/ {sub(/^[[:space:]]+/, ""); print}' "$tmp/log"
if [ "$rc" != 0 ]; then
  echo
  echo "FAIL (go test exit $rc); log tail:"
  tail -60 "$tmp/log"
fi
exit "$rc"
