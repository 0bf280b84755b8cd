#!/usr/bin/env bash
# appendfsync always at 50 clients with a stand-in disk: every fdatasync of
# both servers is replaced by a sleep of L µs that costs no CPU (aofserver
# built with -tags fakesync, redis-server run with an LD_PRELOAD shim), so
# the two designs are compared on the same latency with the disk's CPU
# cost taken out. A last row runs both on the real disk.
#
# What it shows on a 2-vCPU machine, where redis-benchmark shares the CPUs:
# the ratio ours/Redis the designs reach when only latency differs, which
# bounds what tuning can win on the real disk. Then the CPU budget of the
# real disk at 50 clients: CPU per request of redis-benchmark and of each
# server with persistence off, and of one fdatasync (a server's CPU per
# request under always at one client, one fsync each, less its CPU per
# request with persistence off), and what 1.5x Redis's always rate would
# need of the two CPUs with 25 commands per fsync. Nothing either server
# writes here is durable; the data directories are removed.
#
# Only 127.0.0.1, ports picked free at runtime. About 5 minutes.
# With INFLIGHT=n a column for aofserver with aof-group-commit-inflight n
# is added (fsyncs in flight at once).
# BUDGET=0 skips the CPU budget.
# Usage: scripts/bench_fsync_model.sh   (LATS="0 100 300 1000" REPEATS=3 INFLIGHT=4 BUDGET=0)
set -euo pipefail
cd "$(dirname "$0")/.."

REPEATS=${REPEATS:-3}
LATS=${LATS:-0 100 200 300 500 1000}
REQUESTS=${REQUESTS:-200000}
. scripts/benchlib.sh
need_tools
command -v cc >/dev/null || { echo "missing cc (the redis-server shim is C)"; exit 1; }

WORK=$(mktemp -d /tmp/aofserver-fsmodel.XXXXXX)
SRV_PID=""
trap 'stop_server; rm -rf "$WORK"' EXIT

echo "== go build -tags fakesync"
go build -tags fakesync -o "$WORK/aofserver" ./cmd/server
REAL_OURS=$OURS
go build -o "$REAL_OURS" ./cmd/server

cat >"$WORK/fakesync.c" <<'EOF'
/* fsync and fdatasync as a sleep of FAKESYNC_USEC µs (unset: 0). */
#include <stdlib.h>
#include <time.h>
#include <errno.h>
static int fake(void) {
    const char *s = getenv("FAKESYNC_USEC");
    long us = s ? atol(s) : 0;
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    while (us > 0 && nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
    return 0;
}
int fdatasync(int fd) { (void)fd; return fake(); }
int fsync(int fd) { (void)fd; return fake(); }
EOF
cc -O2 -shared -fPIC -o "$WORK/fakesync.so" "$WORK/fakesync.c"
cat >"$WORK/fake-redis-server" <<EOF
#!/bin/sh
LD_PRELOAD=$WORK/fakesync.so exec $REDIS "\$@"
EOF
chmod +x "$WORK/fake-redis-server"

# one <kind> <L|real> [server args]: a fresh server, one redis-benchmark
# run; prints "rps cmds_per_fsync" (the latter from INFO for ours, - for
# Redis).
one() {
  local kind=$1 lat=$2
  shift 2
  if [ "$lat" = real ]; then
    OURS=$REAL_OURS REDIS=/usr/bin/redis-server start_server "$kind" --appendonly yes --appendfsync always "$@"
  else
    AOFSERVER_FAKE_FSYNC_USEC=$lat FAKESYNC_USEC=$lat OURS=$WORK/aofserver REDIS=$WORK/fake-redis-server \
      start_server "$kind" --appendonly yes --appendfsync always "$@"
  fi
  local out per=-
  out=$(redis-benchmark -h 127.0.0.1 -p "$PORT" --csv -t set -n "$REQUESTS" -c 50 -r 100000 2>&1 |
    awk -F'","' 'NR==2 {print $2}')
  if [ "$kind" = ours ]; then per=$(info_field persistence aof_group_commit_avg_cmds); fi
  stop_server
  rm -rf "${WORK:?}"/ours-* "${WORK:?}"/redis-*
  echo "${out:-0} $per"
}

INFLIGHT=${INFLIGHT:-}
printf '%-10s %10s %10s %7s %12s' "fsync µs" ours redis ratio "ours cmds/fsync"
[ -n "$INFLIGHT" ] && printf ' %14s %7s' "ours inflight $INFLIGHT" ratio
echo
for lat in $LATS real; do
  o=() r=() g=() f=()
  for _ in $(seq 1 "$REPEATS"); do
    read -r v p < <(one ours "$lat"); o+=("$v"); g+=("$p")
    if [ -n "$INFLIGHT" ]; then
      read -r v _ < <(one ours "$lat" --aof-group-commit-inflight "$INFLIGHT"); f+=("$v")
    fi
    read -r v _ < <(one redis "$lat"); r+=("$v")
  done
  mo=$(median "${o[@]}"); mr=$(median "${r[@]}"); mg=$(median "${g[@]}")
  printf '%-10s %10.0f %10.0f %7s %12s' "$lat" "$mo" "$mr" \
    "$(awk -v a="$mo" -v b="$mr" 'BEGIN { printf "%.2f", a / b }')" "$mg"
  if [ -n "$INFLIGHT" ]; then
    mf=$(median "${f[@]}")
    printf ' %14.0f %7s' "$mf" "$(awk -v a="$mf" -v b="$mr" 'BEGIN { printf "%.2f", a / b }')"
  fi
  printf '   (ours: %s; redis: %s%s)\n' "${o[*]}" "${r[*]}" "${INFLIGHT:+; inflight: ${f[*]}}"
done

# cpu <kind> <server args> -- <benchmark args>: one fresh run; prints
# "rps server_us_per_req bench_us_per_req".
cpu() {
  local kind=$1; shift
  local sargs=()
  while [ "$1" != -- ]; do sargs+=("$1"); shift; done
  shift
  OURS=$REAL_OURS REDIS=/usr/bin/redis-server start_server "$kind" "${sargs[@]}"
  local hz s0 s1 out t
  hz=$(getconf CLK_TCK)
  s0=$(awk '{print $14 + $15}' "/proc/$SRV_PID/stat")
  TIMEFORMAT='%U %S'
  { t=$( { time redis-benchmark -h 127.0.0.1 -p "$PORT" --csv "$@" >"$WORK/out" 2>&1; } 2>&1 ); }
  s1=$(awk '{print $14 + $15}' "/proc/$SRV_PID/stat")
  out=$(awk -F'","' 'NR==2 {print $2}' "$WORK/out")
  local n
  n=$(info_field stats total_commands_processed)
  stop_server
  rm -rf "${WORK:?}"/ours-* "${WORK:?}"/redis-*
  awk -v r="${out:-0}" -v s=$((s1 - s0)) -v hz="$hz" -v t="$t" -v n="$n" \
    'BEGIN { split(t, a, " "); printf "%.0f %.1f %.1f\n", r, s / hz * 1e6 / n, (a[1] + a[2]) * 1e6 / n }'
}

[ "${BUDGET:-1}" = 0 ] && exit 0 # the sweep only
echo
echo "== CPU budget on the real disk (medians of $REPEATS)"
declare -A C
for kind in ours redis; do
  o=() sv=() bv=() f=()
  for _ in $(seq 1 "$REPEATS"); do
    read -r r sc bc < <(cpu "$kind" --appendonly no -- -t set -n "$REQUESTS" -c 50 -r 100000)
    o+=("$r"); sv+=("$sc"); bv+=("$bc")
    read -r _ fc _ < <(cpu "$kind" --appendonly yes --appendfsync always -- -t set -n 5000 -c 1 -r 100000)
    read -r _ oc _ < <(cpu "$kind" --appendonly no -- -t set -n 20000 -c 1 -r 100000)
    f+=("$(awk -v a="$fc" -v b="$oc" 'BEGIN { printf "%.1f", a - b }')")
  done
  C[$kind,off]=$(median "${o[@]}"); C[$kind,srv]=$(median "${sv[@]}")
  C[$kind,bench]=$(median "${bv[@]}"); C[$kind,fsync]=$(median "${f[@]}")
  printf '%-6s persistence off, 50 clients: %7.0f SET/s, server %5.1f µs/req, redis-benchmark %5.1f µs/req; one fdatasync: %6.1f µs of CPU\n' \
    "$kind" "${C[$kind,off]}" "${C[$kind,srv]}" "${C[$kind,bench]}" "${C[$kind,fsync]}"
done
awk -v x="$mr" -v b="${C[redis,bench]}" -v so="${C[ours,srv]}" -v sr="${C[redis,srv]}" \
  -v fo="${C[ours,fsync]}" -v fr="${C[redis,fsync]}" 'BEGIN {
  X = 1.5 * x; s = (so < sr ? so : sr); f = (fo < fr ? fo : fr)
  need = X * (b + s) / 1e6 + X / 25 * f / 1e6
  printf "1.5x Redis'"'"'s always rate on the real disk (%.0f SET/s) with the cheaper server and fsync: %.2f of 2 CPUs busy (%.0f%%)\n", X, need, need * 50
}'
