# Shared helpers for the benchmark scripts (sourced, not run).
# Servers listen on 127.0.0.1 only, on ports picked free at runtime.

OURS=${OURS:-bin/aofserver}
REDIS=${REDIS_SERVER:-/usr/bin/redis-server}

need_tools() {
  local tool
  for tool in "$REDIS" redis-benchmark redis-cli; do
    command -v "$tool" >/dev/null 2>&1 || { echo "missing $tool (see scripts/test.sh)"; exit 1; }
  done
}

# Below the kernel's ephemeral range (32768+), so a client's source port
# cannot take it between the check and the bind.
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 12000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
}

# start_server <ours|redis> <extra args...>: sets SRV_PID, PORT and SRV_DIR
# (a fresh directory under $WORK unless --dir is among the args).
start_server() {
  local kind=$1; shift
  local exe=$OURS
  [ "$kind" = redis ] && exe=$REDIS
  local attempt
  for attempt in 1 2 3; do
    PORT=$(free_port)
    SRV_DIR="$WORK/$kind-$PORT"
    mkdir -p "$SRV_DIR"
    "$exe" --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$SRV_DIR" \
      --logfile "" --daemonize no "$@" >"$SRV_DIR.log" 2>&1 &
    SRV_PID=$!
    for _ in $(seq 1 1200); do
      if [ "$(redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null)" = PONG ]; then return; fi
      kill -0 "$SRV_PID" 2>/dev/null || break
      sleep 0.05
    done
    echo "$kind did not start on port $PORT (attempt $attempt):" >&2
    tail -5 "$SRV_DIR.log" >&2
    kill "$SRV_PID" 2>/dev/null || true
    wait "$SRV_PID" 2>/dev/null || true
  done
  exit 1
}

stop_server() {
  kill "$SRV_PID" 2>/dev/null || true
  wait "$SRV_PID" 2>/dev/null || true
  SRV_PID=""
}

rcli() { redis-cli -h 127.0.0.1 -p "$PORT" "$@"; }

info_field() { rcli info "$1" | tr -d '\r' | awk -F: -v f="$2" '$1 == f {print $2}'; }

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
