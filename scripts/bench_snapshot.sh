#!/usr/bin/env bash
# Snapshot under load, aofserver and the real redis-server side by side:
# N keys (default 1M, 10-byte values) are loaded, 50 redis-benchmark
# clients write continuously, and BGSAVE (then, with appendonly yes,
# BGREWRITEAOF) runs. Reported per server: the longest stall any client saw
# (redis-benchmark's max latency) and the requests that took over 5 and
# over 10 ms, during the save versus without it, Redis's
# latest_fork_usec, the save time, peak RSS during the save versus before,
# the server's own LATENCY events of 1 ms or more during the save (fork;
# for aofserver the longest snapshot step that held the executor),
# and the time to load the resulting dump.rdb / AOF at start-up.
#
# Usage: scripts/bench_snapshot.sh [keys]     (about 2-4 minutes)
#   PARTS="bgsave bgrewriteaof incr" picks the sections (default all);
#   RUNS=n repeats each server's save runs, interleaved (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/benchlib.sh
KEYS=${1:-1000000}
# requests of the load that runs across the save (long enough to cover it)
LOADN=${LOADN:-600000}
PARTS=${PARTS:-bgsave bgrewriteaof incr}
RUNS=${RUNS:-1}
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
need_tools
echo "== go build -o $OURS ./cmd/server"
go build -o "$OURS" ./cmd/server
WORK=$(mktemp -d /tmp/aofserver-snapbench.XXXXXX)
SRV_PID=""
trap 'stop_server; rm -rf "$WORK"' EXIT

# "<max ms>/<requests over 5 ms>/<over 10 ms>" of a 50-client SET run of n
# requests. The maximum alone is one sample of the machine's noise; the
# counts tell one stall from many (a stall of the whole server shows as
# about 50 requests at once).
bench_max() {
  redis-benchmark -h 127.0.0.1 -p "$PORT" -t set -c 50 -n "$1" -r "$KEYS" -d 10 2>/dev/null | tr '\r' '\n' |
    awk '/latency summary/ {getline; getline; mx = $6}
      /Cumulative distribution/ {c = 1; next}
      c && /cumulative count/ {gsub(/[()]/, ""); v = $3 + 0; n = $NF + 0; if (v <= 5.2) n5 = n; if (v <= 10.2) n10 = n; tot = n}
      END {printf "%s/%d/%d\n", mx, tot - n5, tot - n10}'
}

# one_run <kind> <save-cmd> <in-progress-field> <server args...>
one_run() {
  local kind=$1 cmd=$2 field=$3; shift 3
  start_server "$kind" --enable-debug-command yes "$@"
  rcli debug populate "$KEYS" key 10 >/dev/null
  local base_max rss0 peak t0 t1 bpid max fork
  base_max=$(bench_max 200000)
  rss0=$(rss_kb "$SRV_PID")
  peak=$rss0
  # From here on LATENCY records every event of 1 ms or more: the fork
  # (Redis) or child start, and (aofserver) each snapshot step that held
  # the executor that long.
  rcli config set latency-monitor-threshold 1 >/dev/null
  bench_max "$LOADN" >"$WORK/max" &
  bpid=$!
  sleep 1
  t0=$(date +%s.%N)
  rcli "$cmd" >/dev/null
  sleep 0.05
  while [ "$(info_field persistence "$field")" = 1 ]; do
    r=$(rss_kb "$SRV_PID"); [ "$r" -gt "$peak" ] && peak=$r
    sleep 0.02
  done
  t1=$(date +%s.%N)
  wait "$bpid" 2>/dev/null || true
  max=$(cat "$WORK/max"); max=${max:-n/a}
  fork=$(info_field stats latest_fork_usec)
  # server-side events of >= 1 ms: "<event>=<max ms>" each, or none
  local lat
  lat=$(rcli latency latest | awk 'NR % 4 == 1 {e = $0} NR % 4 == 0 {printf "%s=%sms,", e, $0}')
  lat=${lat%,}
  local status
  status=$(info_field persistence rdb_last_bgsave_status)/$(info_field persistence aof_last_bgrewrite_status)
  local dir=$SRV_DIR
  stop_server
  # start-up time on the files just written
  local s0 s1
  s0=$(date +%s.%N)
  start_server "$kind" --enable-debug-command yes --dir "$dir" "$@"
  while [ "$(info_field persistence loading)" = 1 ]; do sleep 0.02; done
  s1=$(date +%s.%N)
  local loaded
  loaded=$(rcli dbsize)
  stop_server
  rm -rf "$dir"
  printf '%-6s %-13s keys=%-8s stall_ms/over5/over10=%-16s (no save: %-14s) fork_usec=%-8s save_s=%-6.2f rss_mb=%-6d peak_mb=%-6d peak/before=%-5.2f load_s=%-6.2f loaded=%s status=%s latency_events=%s\n' \
    "$kind" "$cmd" "$KEYS" "$max" "$base_max" "$fork" "$(echo "$t1 - $t0" | bc)" $((rss0 / 1024)) $((peak / 1024)) \
    "$(echo "scale=2; $peak / $rss0" | bc)" "$(echo "$s1 - $s0" | bc)" "$loaded" "$status" "${lat:-none}"
}

if part bgsave; then
  echo "== BGSAVE of $KEYS keys while 50 clients write"
  for _ in $(seq "$RUNS"); do
    one_run ours bgsave rdb_bgsave_in_progress
    one_run redis bgsave rdb_bgsave_in_progress
  done
fi
if part bgrewriteaof; then
  echo "== BGREWRITEAOF of $KEYS keys while 50 clients write (appendfsync everysec)"
  for _ in $(seq "$RUNS"); do
    one_run ours bgrewriteaof aof_rewrite_in_progress --appendonly yes
    one_run redis bgrewriteaof aof_rewrite_in_progress --appendonly yes
  done
fi

# incr_load <kind>: writes ~KEYS commands through the AOF, restarts, times the load.
incr_load() {
  local kind=$1
  start_server "$kind" --appendonly yes --appendfsync no
  redis-benchmark -h 127.0.0.1 -p "$PORT" -t set -n "$KEYS" -r "$KEYS" -d 10 -P 64 -c 20 >/dev/null 2>&1
  local n dir=$SRV_DIR size
  n=$(rcli dbsize)
  size=$(du -sb "$dir/appendonlydir" | awk '{print $1}')
  stop_server
  local s0 s1
  s0=$(date +%s.%N)
  start_server "$kind" --appendonly yes --dir "$dir"
  while [ "$(info_field persistence loading)" = 1 ]; do sleep 0.02; done
  s1=$(date +%s.%N)
  local loaded
  loaded=$(rcli dbsize)
  stop_server
  rm -rf "$dir"
  printf '%-6s incr-load  commands=%-8s aof_bytes=%-10s keys=%-8s loaded=%-8s load_s=%.2f\n' "$kind" "$KEYS" "$size" "$n" "$loaded" "$(echo "$s1 - $s0" | bc)"
}
if part incr; then
  echo "== start-up from an incr file of ~$KEYS SET commands (no base content)"
  incr_load ours
  incr_load redis
fi
