#!/usr/bin/env bash
# Draws what a BGREWRITEAOF does to clients, for aofserver and redis-server
# 7.0 side by side: cmd/timeline runs the same write load against each (one
# after the other, each on a free 127.0.0.1 port in a temporary directory),
# triggers the rewrite part-way through, samples INFO persistence every
# 50 ms and writes, into OUT (default ./timeline):
#
#   timeline-aofserver.png, timeline-redis.png   one server each
#   timeline.png                                 both, shared axes
#
# Each picture: request latency p50/p99/max per 100 ms window (log scale)
# with the rewrite shaded; aof_current_size and aof_base_size; and
# aofserver's commands per fsync (group commit; Redis reports none).
#
# Usage: scripts/rewrite_timeline.sh [timeline flags...]
#   e.g. scripts/rewrite_timeline.sh -clients 16 -pipeline 4 -preload 1000000
#        scripts/rewrite_timeline.sh -job bgsave -appendfsync everysec
#        scripts/rewrite_timeline.sh -addr aofserver=127.0.0.1:6379,redis=127.0.0.1:6380
# go run ./cmd/timeline -h lists every flag (mix, duration, trigger time...).
set -euo pipefail
cd "$(dirname "$0")/.."

OURS=${OURS:-bin/aofserver}
OUT=${OUT:-timeline}

echo "== go build -o $OURS ./cmd/server" >&2
go build -o "$OURS" ./cmd/server
echo "== go build -o bin/timeline ./cmd/timeline" >&2
go build -o bin/timeline ./cmd/timeline

exec bin/timeline -aofserver "$OURS" -out "$OUT" "$@"
