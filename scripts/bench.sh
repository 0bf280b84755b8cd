#!/usr/bin/env bash
# Benchmarks aofserver against the real redis-server 7.0 side by side with
# redis-benchmark: every cell runs on a fresh server of each kind, the two
# kinds interleaved, REPEATS times; the table shows the medians and the
# ratio aofserver/redis (higher is better for rps, lower for memory).
#
# Cells: SET and GET at 1 client, 50 clients, 50 clients -P 16 with
# persistence off; SET at the same three loads with --appendonly yes and
# appendfsync always / everysec / no. Then the RSS of each server after
# loading 1M keys "key:<n>" with a 10-byte value.
#
# Only 127.0.0.1, ports picked free at runtime. About 4-6 minutes.
# Usage: scripts/bench.sh            (REPEATS=3 by default)
set -euo pipefail
cd "$(dirname "$0")/.."

REPEATS=${REPEATS:-3}
. scripts/benchlib.sh
need_tools

echo "== go build -o $OURS ./cmd/server"
go build -o "$OURS" ./cmd/server

WORK=$(mktemp -d /tmp/aofserver-bench.XXXXXX)
SRV_PID=""
trap 'stop_server; rm -rf "$WORK"' EXIT

# rps <kind> <server args> -- <benchmark args>: one fresh run, prints rps.
rps() {
  local kind=$1; shift
  local sargs=()
  while [ "$1" != -- ]; do sargs+=("$1"); shift; done
  shift
  start_server "$kind" "${sargs[@]}"
  local out
  out=$(redis-benchmark -h 127.0.0.1 -p "$PORT" --csv "$@" 2>&1)
  stop_server
  rm -rf "${WORK:?}"/*
  echo "$out" | awk -F'","' 'NR==2 {print $2}'
}

ROWS=()
# cell <label> <server args> -- <benchmark args>
cell() {
  local label=$1; shift
  local o=() r=() i v
  for i in $(seq 1 "$REPEATS"); do
    v=$(rps ours "$@"); o+=("${v:-0}")
    v=$(rps redis "$@"); r+=("${v:-0}")
  done
  local mo mr
  mo=$(median "${o[@]}"); mr=$(median "${r[@]}")
  local ratio
  ratio=$(awk -v a="$mo" -v b="$mr" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
  ROWS+=("$(printf '%-34s %12.0f %12.0f %7s' "$label" "$mo" "$mr" "$ratio")")
  echo "${ROWS[-1]}   (ours: ${o[*]}; redis: ${r[*]})"
}

echo "== throughput (requests/s, median of $REPEATS fresh runs each)"
for t in set get; do
  T=$(echo "$t" | tr a-z A-Z)
  cell "$T  c=1        persistence off" -- -t "$t" -n 20000 -c 1
  cell "$T  c=50       persistence off" -- -t "$t" -n 100000 -c 50
  cell "$T  c=50 P=16  persistence off" -- -t "$t" -n 400000 -c 50 -P 16
done
for fs in always everysec no; do
  n1=20000
  [ "$fs" = always ] && n1=3000
  cell "SET  c=1        aof fsync=$fs" --appendonly yes --appendfsync "$fs" -- -t set -n "$n1" -c 1
  cell "SET  c=50       aof fsync=$fs" --appendonly yes --appendfsync "$fs" -- -t set -n 100000 -c 50
  cell "SET  c=50 P=16  aof fsync=$fs" --appendonly yes --appendfsync "$fs" -- -t set -n 400000 -c 50 -P 16
done

echo "== memory: RSS after SET key:<n> <10 bytes> for 1M keys"
# rss_after_load <kind>: prints "rss_kb dbsize"
rss_after_load() {
  start_server "$1"
  awk 'BEGIN { for (i = 0; i < 1000000; i++) { k = "key:" i; printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$10\r\n0123456789\r\n", length(k), k } }' |
    redis-cli -h 127.0.0.1 -p "$PORT" --pipe >/dev/null
  local n rss
  n=$(redis-cli -h 127.0.0.1 -p "$PORT" dbsize)
  sleep 1
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$SRV_PID/status")
  stop_server
  echo "$rss $n"
}
read -r ro no < <(rss_after_load ours)
read -r rr nr < <(rss_after_load redis)
if [ "$no" != 1000000 ] || [ "$nr" != 1000000 ]; then
  echo "dbsize after load: ours $no, redis $nr (want 1000000)"; exit 1
fi
mratio=$(awk -v a="$ro" -v b="$rr" 'BEGIN { printf "%.2f", a / b }')

echo
echo "== results (ratio = aofserver / redis)"
printf '%-34s %12s %12s %7s\n' "cell" "aofserver" "redis-7.0" "ratio"
printf '%s\n' "${ROWS[@]}"
printf '%-34s %10.1fMB %10.1fMB %7s\n' "RSS, 1M keys x 10-byte values" "$(awk -v k="$ro" 'BEGIN{print k/1024}')" "$(awk -v k="$rr" 'BEGIN{print k/1024}')" "$mratio"

# Master SET throughput with one attached replica, ours against Redis's
# (the ratio in the same run); REPL=0 skips it.
if [ "${REPL:-1}" != 0 ]; then
  echo
  REPEATS="$REPEATS" scripts/bench_repl.sh
fi
