#!/usr/bin/env bash
# appendfsync always with a stand-in disk: every fdatasync of both servers
# is replaced by a sleep of L µs that costs no CPU (aofserver built with
# -tags fakesync, redis-server run with an LD_PRELOAD shim), so the two
# designs are compared on the same device time with the disk's CPU cost
# taken out: a table of SET at 1, 8 and 50 clients and 50 clients -P 16
# (CELLS), ours and Redis run one after the other, REPEATS times per cell,
# with the server CPU per request. L=real runs both on the local disk.
#
# Then, unless BUDGET=0, the CPU budget of the real disk at 50 clients:
# CPU per request of redis-benchmark and of each
# server with persistence off, and of one fdatasync (a server's CPU per
# request under always at one client, one fsync each, less its CPU per
# request with persistence off), and what 1.5x Redis's always rate would
# need of the two CPUs with 25 commands per fsync. Nothing either server
# writes here is durable; the data directories are removed.
#
# Only 127.0.0.1, ports picked free at runtime. About 10 minutes with the
# defaults. Ours runs with default settings (the self-tuning group commit);
# OURS_ARGS adds server arguments to ours only.
# Usage: scripts/bench_fsync_model.sh   (LATS="200 1000 5000 real" CELLS="1:1 50:16" REPEATS=3 BUDGET=0)
set -euo pipefail
cd "$(dirname "$0")/.."

REPEATS=${REPEATS:-3}
LATS=${LATS:-200 1000 5000}
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

# one <kind> <L|real> <clients> <pipeline> <requests> [server args]: a
# fresh server, one redis-benchmark SET run; prints "rps cpu_us_per_req
# mode": the server's user+system CPU (/proc/<pid>/stat) over the run per
# command processed, and for ours the group-commit mode INFO shows at the
# end (- for Redis).
one() {
  local kind=$1 lat=$2 c=$3 p=$4 n=$5
  shift 5
  # shellcheck disable=SC2206 # OURS_ARGS is split into arguments
  [ "$kind" = ours ] && set -- "$@" ${OURS_ARGS:-}
  if [ "$lat" = real ]; then
    OURS=$REAL_OURS REDIS=/usr/bin/redis-server start_server "$kind" --appendonly yes --appendfsync always "$@"
  else
    AOFSERVER_FAKE_FSYNC_USEC=$lat FAKESYNC_USEC=$lat OURS=$WORK/aofserver REDIS=$WORK/fake-redis-server \
      start_server "$kind" --appendonly yes --appendfsync always "$@"
  fi
  local out mode=- s0 s1 cmds
  s0=$(awk '{print $14 + $15}' "/proc/$SRV_PID/stat")
  out=$(redis-benchmark -h 127.0.0.1 -p "$PORT" --csv -t set -n "$n" -c "$c" -P "$p" -r 100000 2>&1 |
    awk -F'","' 'NR==2 {print $2}')
  s1=$(awk '{print $14 + $15}' "/proc/$SRV_PID/stat")
  cmds=$(info_field stats total_commands_processed)
  if [ "$kind" = ours ]; then mode=$(info_field persistence aof_group_commit_mode); fi
  stop_server
  rm -rf "${WORK:?}"/ours-* "${WORK:?}"/redis-*
  awk -v r="${out:-0}" -v s=$((s1 - s0)) -v hz="$HZ" -v n="${cmds:-1}" -v m="${mode:--}" \
    'BEGIN { printf "%.0f %.1f %s\n", r, s / hz * 1e6 / n, m }'
}

# requests <L|real> <clients> <pipeline>: about 2 s at one flush per
# round trip (real: as 0.3 ms), at least 1000, at most 200000.
requests() {
  local l=$1
  [ "$l" = real ] && l=300
  awk -v l="$l" -v c="$2" -v p="$3" 'BEGIN { n = 2 * c * p * 1e6 / (l + 100)
    if (n < 1000) n = 1000; if (n > 200000) n = 200000; printf "%d\n", n }'
}

HZ=$(getconf CLK_TCK)
CELLS=${CELLS:-1:1 8:1 50:1 50:16}
echo "== appendfsync always, SET; stand-in fsync of L µs (real: the local disk); $REPEATS interleaved runs per cell"
echo "   rps and server CPU per request: median (min-max); ratio of medians; ours' group-commit mode"
printf '%-6s %-7s %-26s %-26s %6s %-14s %-14s %s\n' "L µs" clients "ours SET/s" "redis SET/s" ratio "ours µs/req" "redis µs/req" "ours mode"
for lat in $LATS; do
  for cell in $CELLS; do
    c=${cell%%:*} p=${cell##*:}
    n=$(requests "$lat" "$c" "$p")
    o=() r=() oc=() rc=() modes=()
    for _ in $(seq 1 "$REPEATS"); do
      read -r v u m < <(one ours "$lat" "$c" "$p" "$n"); o+=("$v"); oc+=("$u"); modes+=("$m")
      read -r v u _ < <(one redis "$lat" "$c" "$p" "$n"); r+=("$v"); rc+=("$u")
    done
    mo=$(median "${o[@]}"); mr=$(median "${r[@]}")
    label="c$c"; [ "$p" != 1 ] && label="c$c -P$p"
    printf '%-6s %-7s %-26s %-26s %6s %-14s %-14s %s\n' "$lat" "$label" \
      "$mo ($(printf '%s\n' "${o[@]}" | sort -g | head -1)-$(printf '%s\n' "${o[@]}" | sort -g | tail -1))" \
      "$mr ($(printf '%s\n' "${r[@]}" | sort -g | head -1)-$(printf '%s\n' "${r[@]}" | sort -g | tail -1))" \
      "$(awk -v a="$mo" -v b="$mr" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
      "$(median "${oc[@]}")" "$(median "${rc[@]}")" "$(printf '%s\n' "${modes[@]}" | sort | uniq -c | awk '{printf "%s%s×%s", (NR > 1 ? "," : ""), $1, $2}')"
  done
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
  if [ "$kind" = redis ]; then
    a=()
    for _ in $(seq 1 "$REPEATS"); do read -r v _ _ < <(one redis real 50 1 "$REQUESTS"); a+=("$v"); done
    mr=$(median "${a[@]}")
  fi
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
