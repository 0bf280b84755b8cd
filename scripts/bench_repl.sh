#!/usr/bin/env bash
# Master SET throughput with one attached replica: aofserver master with
# an aofserver replica beside redis-server with a redis-server replica,
# and each kind without a replica for reference (the cost of the link).
# redis-benchmark -t set -c 50 against the master, persistence off on
# both; after each run the replica must reach the master's offset (the
# time it took is shown). Every run uses fresh servers, the kinds
# interleaved, REPEATS times; the table shows medians and the ratio
# aofserver/redis (higher is better).
#
# Only 127.0.0.1, ports picked free at runtime. About 1-2 minutes.
# Usage: scripts/bench_repl.sh        (REPEATS=3, N=200000 by default)
set -euo pipefail
cd "$(dirname "$0")/.."

REPEATS=${REPEATS:-3}
N=${N:-200000}
. scripts/benchlib.sh
need_tools

echo "== go build -o $OURS ./cmd/server"
go build -o "$OURS" ./cmd/server

WORK=$(mktemp -d /tmp/aofserver-bench-repl.XXXXXX)
SRV_PID=""
MASTER_PID=""
cleanup() {
  stop_server
  if [ -n "$MASTER_PID" ]; then kill "$MASTER_PID" 2>/dev/null || true; wait "$MASTER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# repl_field <port> <field>: a field of INFO replication.
repl_field() { redis-cli -h 127.0.0.1 -p "$1" info replication | tr -d '\r' | awk -F: -v f="$2" '$1 == f {print $2}'; }

# run <kind> <replicas 0|1>: one fresh run; sets RUN_RPS and RUN_CATCHUP
# (ms). Not in a subshell, so that cleanup knows the servers.
run() {
  local kind=$1 replicas=$2
  start_server "$kind" --repl-diskless-sync-delay 0
  MASTER_PID=$SRV_PID
  local mport=$PORT
  SRV_PID=""
  local rport=""
  if [ "$replicas" = 1 ]; then
    start_server "$kind" --replicaof 127.0.0.1 "$mport"
    rport=$PORT
    for _ in $(seq 1 600); do
      [ "$(repl_field "$rport" master_link_status)" = up ] && break
      sleep 0.05
    done
    if [ "$(repl_field "$rport" master_link_status)" != up ]; then
      echo "$kind replica did not sync" >&2; tail -5 "$SRV_DIR.log" >&2; exit 1
    fi
  fi
  local out
  out=$(redis-benchmark -h 127.0.0.1 -p "$mport" --csv -t set -n "$N" -c 50 -r 100000 2>&1)
  local catchup=0
  if [ -n "$rport" ]; then
    # The replica reaches the master's offset: the stream kept up.
    local t0 t1 moff
    t0=$(date +%s%N)
    moff=$(repl_field "$mport" master_repl_offset)
    for _ in $(seq 1 600); do
      [ "$(repl_field "$rport" slave_repl_offset)" -ge "$moff" ] && break
      sleep 0.01
    done
    if [ "$(repl_field "$rport" slave_repl_offset)" -lt "$moff" ]; then
      echo "$kind replica did not catch up" >&2; exit 1
    fi
    t1=$(date +%s%N)
    catchup=$(( (t1 - t0) / 1000000 ))
    stop_server
  fi
  kill "$MASTER_PID" 2>/dev/null || true
  wait "$MASTER_PID" 2>/dev/null || true
  MASTER_PID=""
  rm -rf "${WORK:?}"/*
  RUN_RPS=$(echo "$out" | awk -F'","' 'NR==2 {print $2}')
  RUN_CATCHUP=$catchup
}

echo "== master SET c=50 -n $N, persistence off (requests/s, median of $REPEATS fresh runs each)"
for replicas in 1 0; do
  o=() r=() oc=() rc=()
  for i in $(seq 1 "$REPEATS"); do
    run ours "$replicas"; o+=("${RUN_RPS:-0}"); oc+=("$RUN_CATCHUP")
    run redis "$replicas"; r+=("${RUN_RPS:-0}"); rc+=("$RUN_CATCHUP")
  done
  mo=$(median "${o[@]}"); mr=$(median "${r[@]}")
  ratio=$(awk -v a="$mo" -v b="$mr" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
  label="SET  c=50  master, no replica"
  [ "$replicas" = 1 ] && label="SET  c=50  master + 1 replica"
  printf '%-34s %12.0f %12.0f %7s   (ours: %s; redis: %s)\n' "$label" "$mo" "$mr" "$ratio" "${o[*]}" "${r[*]}"
  if [ "$replicas" = 1 ]; then
    echo "   replica caught up after the run in (ms) ours: ${oc[*]}; redis: ${rc[*]}"
  fi
done
