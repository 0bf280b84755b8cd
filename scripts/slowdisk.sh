#!/usr/bin/env bash
# Latency on a slow disk: aofserver and redis-server side by side, their
# data directory on crashfs with every fsync delayed (a network block
# device), for appendfsync always and everysec, and under always aofserver
# once more with aof-group-commit-inflight $INFLIGHT (default 4: fsyncs that
# overlap). Prints p50/p99 of SET and GET measured by redis-benchmark.
# Needs root (or fusermount3), /dev/fuse, redis-server and redis-benchmark.
#
#   scripts/slowdisk.sh                          # 5ms per fsync, 50 clients, 20000 requests
#   FSYNC_DELAY=2ms CLIENTS=50 REQUESTS=20000 INFLIGHT=8 AOFSERVER_BIN=... scripts/slowdisk.sh
set -euo pipefail
cd "$(dirname "$0")/.."

FSYNC_DELAY=${FSYNC_DELAY:-5ms}
CLIENTS=${CLIENTS:-50}
REQUESTS=${REQUESTS:-20000}
INFLIGHT=${INFLIGHT:-4} # aof-group-commit-inflight of the extra aofserver row
REDIS=${REDIS_SERVER:-/usr/bin/redis-server}
BENCH=${REDIS_BENCHMARK:-$(command -v redis-benchmark || echo /usr/bin/redis-benchmark)}

tmp=$(mktemp -d)
pids=()
mnt=""
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  if [ -n "$mnt" ] && mountpoint -q "$mnt" 2>/dev/null; then umount -l "$mnt" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "== building crashfs and aofserver" >&2
go build -o "$tmp/crashfs" ./cmd/crashfs
AOFSERVER=${AOFSERVER_BIN:-}
if [ -z "$AOFSERVER" ]; then
  go build -o "$tmp/aofserver" ./cmd/server
  AOFSERVER="$tmp/aofserver"
fi

free_port() {
  local p
  while :; do
    p=$(( 20000 + RANDOM % 20000 ))
    if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then echo "$p"; return; fi
  done
}

wait_for() { # file pattern seconds
  local i
  for ((i = 0; i < $3 * 20; i++)); do
    if grep -q "$2" "$1" 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "timeout waiting for '$2' in $1:" >&2; tail -20 "$1" >&2; return 1
}

# run <name> <exe> <policy> [server args]: prints "SET p50 p99 GET p50 p99 rps_set rps_get"
run() {
  local name=$1 exe=$2 policy=$3 run="$tmp/$1-$3-$RANDOM"
  shift 3
  mkdir -p "$run/backing" "$run/mnt"
  mnt="$run/mnt"
  "$tmp/crashfs" --quiet --fsync-delay "$FSYNC_DELAY" "$run/backing" "$run/mnt" >"$run/crashfs.log" 2>&1 &
  local fpid=$!
  pids+=("$fpid")
  wait_for "$run/crashfs.log" "serving" 10
  local port
  port=$(free_port)
  "$exe" --dir "$run/mnt" --port "$port" --bind 127.0.0.1 --save "" \
    --appendonly yes --appendfsync "$policy" "$@" >"$run/server.log" 2>&1 &
  local spid=$!
  pids+=("$spid")
  wait_for "$run/server.log" "Ready to accept connections" 30
  "$BENCH" -h 127.0.0.1 -p "$port" -t set,get -c "$CLIENTS" -n "$REQUESTS" --precision 3 --csv >"$run/bench.csv" 2>"$run/bench.err"
  kill -9 "$spid"; wait "$spid" 2>/dev/null || true
  kill "$fpid"; wait "$fpid" 2>/dev/null || true
  mnt=""
  # "test","rps","avg","min","p50","p95","p99","max"
  awk -F'","|"' -v name="$name" -v policy="$policy" '
    $2 == "SET" { sp50 = $6; sp99 = $8; srps = $3 }
    $2 == "GET" { gp50 = $6; gp99 = $8; grps = $3 }
    END { printf "| %-9s | %-8s | %9s | %9s | %9s | %9s | %9.0f | %9.0f |\n", name, policy, sp50, sp99, gp50, gp99, srps, grps }
  ' "$run/bench.csv"
}

echo "== slow disk: every fsync sleeps $FSYNC_DELAY; redis-benchmark -t set,get -c $CLIENTS -n $REQUESTS" >&2
echo
echo "fsync delay $FSYNC_DELAY, $CLIENTS clients, $REQUESTS requests per test; latencies in ms"
echo "| server    | policy   | SET p50   | SET p99   | GET p50   | GET p99   | SET rps   | GET rps   |"
echo "|-----------|----------|-----------|-----------|-----------|-----------|-----------|-----------|"
for policy in always everysec; do
  run aofserver "$AOFSERVER" "$policy"
  if [ "$policy" = always ]; then
    run "aofserver, inflight $INFLIGHT" "$AOFSERVER" "$policy" --aof-group-commit-inflight "$INFLIGHT"
  fi
  run redis "$REDIS" "$policy"
done
