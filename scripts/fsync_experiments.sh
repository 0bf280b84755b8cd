#!/usr/bin/env bash
# The published appendfsync experiments, reproduced with aofserver and the
# real redis-server 7.0 side by side (one fresh server of each kind per
# policy, the two kinds run one after the other on the same machine):
#   1. single-client SET latency p50/p99/max over 3000 synchronous SETs;
#   2. throughput of pipelined batches of 2000 SETs;
#   3. 1 versus 8 concurrent clients: total throughput and amplification;
#   4. redis-benchmark -t set at 50 clients, and aof_delayed_fsync after it.
# Only 127.0.0.1, ports picked free at runtime. About 2 minutes.
# Usage: scripts/fsync_experiments.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/benchlib.sh
need_tools

echo "== go build"
go build -o "$OURS" ./cmd/server
FB=bin/fsyncbench
go build -o "$FB" ./cmd/fsyncbench

WORK=$(mktemp -d /tmp/aofserver-fsync.XXXXXX)
SRV_PID=""
trap 'stop_server; rm -rf "$WORK"' EXIT

declare -A R
for policy in always everysec no; do
  for kind in ours redis; do
    start_server "$kind" --appendonly yes --appendfsync "$policy"
    while read -r name a b c; do
      R[$kind,$policy,$name]="$a${b:+ $b}${c:+ $c}"
    done < <("$FB" -addr "127.0.0.1:$PORT" -duration 3s)
    rps=$(redis-benchmark -h 127.0.0.1 -p "$PORT" --csv -t set -c 50 -n 50000 2>&1 | awk -F'","' 'NR==2 {print $2}')
    R[$kind,$policy,bench]=$rps
    R[$kind,$policy,delayed]=$(info_field persistence aof_delayed_fsync)
    stop_server
    rm -rf "${WORK:?}"/*
  done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

echo
echo "### 1. Single-client SET latency, 3000 synchronous SETs (microseconds)"
echo
echo "| policy | aofserver p50 / p99 / max | redis p50 / p99 / max |"
echo "|---|---|---|"
for p in always everysec no; do
  read -r a1 a2 a3 <<<"${R[ours,$p,latency]}"
  read -r b1 b2 b3 <<<"${R[redis,$p,latency]}"
  echo "| $p | $a1 / $a2 / $a3 | $b1 / $b2 / $b3 |"
done
echo
echo "### 2. Pipelined batches of 2000 SETs (SET/s)"
echo
echo "| policy | aofserver | redis | ratio |"
echo "|---|---|---|---|"
for p in always everysec no; do
  echo "| $p | ${R[ours,$p,pipeline]} | ${R[redis,$p,pipeline]} | $(ratio "${R[ours,$p,pipeline]}" "${R[redis,$p,pipeline]}") |"
done
echo
echo "### 3. 1 versus 8 concurrent clients, synchronous SETs (SET/s; amplification = 8 clients / 1 client)"
echo
echo "| policy | aofserver 1 | aofserver 8 | amplification | redis 1 | redis 8 | amplification | ratio at 8 |"
echo "|---|---|---|---|---|---|---|---|"
for p in always everysec no; do
  o1=${R[ours,$p,clients1]} o8=${R[ours,$p,clients8]} r1=${R[redis,$p,clients1]} r8=${R[redis,$p,clients8]}
  echo "| $p | $o1 | $o8 | $(ratio "$o8" "$o1") | $r1 | $r8 | $(ratio "$r8" "$r1") | $(ratio "$o8" "$r8") |"
done
echo
echo "### 4. redis-benchmark -t set -c 50 -n 50000 (SET/s) and aof_delayed_fsync after it"
echo
echo "| policy | aofserver | redis | ratio | delayed fsync aofserver / redis |"
echo "|---|---|---|---|---|"
for p in always everysec no; do
  echo "| $p | ${R[ours,$p,bench]} | ${R[redis,$p,bench]} | $(ratio "${R[ours,$p,bench]}" "${R[redis,$p,bench]}") | ${R[ours,$p,delayed]} / ${R[redis,$p,delayed]} |"
done
