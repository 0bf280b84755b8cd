#!/usr/bin/env bash
# Runs every check and test of aofserver. Installs what a fresh machine
# lacks: Go modules (go mod download) and Debian's redis-server/redis-tools
# 7.0, used by the interop and differential tests.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1 || ! command -v redis-benchmark >/dev/null 2>&1; then
  echo "== installing redis-server and redis-tools (Debian)"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server redis-tools >/dev/null
fi
# redis-sentinel 7.0 for cmd/server's failover test (Sentinel over
# aofserver). Under CI=true its absence fails the run, as the test would.
if ! command -v redis-sentinel >/dev/null 2>&1; then
  echo "== installing redis-sentinel (Debian)"
  S=""
  if [ "$(id -u)" != 0 ]; then S=sudo; fi
  { $S apt-get update -qq && DEBIAN_FRONTEND=noninteractive $S apt-get install -y -qq redis-sentinel >/dev/null; } ||
    echo "WARNING: could not install redis-sentinel"
  if ! command -v redis-sentinel >/dev/null 2>&1 && [ "${CI:-}" = true ]; then
    echo "FAIL: redis-sentinel is required under CI=true"; exit 1
  fi
fi
# fuse3 for cmd/crashfs's power-cut test. As root crashfs mounts without
# fusermount3, so a failed install is reported, not fatal; the test itself
# fails under CI=true when /dev/fuse cannot be used.
if ! command -v fusermount3 >/dev/null 2>&1; then
  echo "== installing fuse3 (Debian), for cmd/crashfs"
  S=""
  if [ "$(id -u)" != 0 ]; then S=sudo; fi
  { $S apt-get update -qq && DEBIAN_FRONTEND=noninteractive $S apt-get install -y -qq fuse3 >/dev/null; } ||
    echo "WARNING: could not install fuse3"
fi
# nutcracker (twemproxy) for cmd/server's sharding-through-a-proxy test.
if ! command -v nutcracker >/dev/null 2>&1 && [ ! -x /usr/sbin/nutcracker ]; then
  echo "== installing nutcracker (Debian)"
  S=""
  if [ "$(id -u)" != 0 ]; then S=sudo; fi
  $S apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $S apt-get install -y -qq nutcracker >/dev/null
fi
# Debian starts redis-server, redis-sentinel and nutcracker services on install; our tests
# never use them (they listen on free ports of their own).
redis-server --version

echo "== go mod download"
go mod download

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed on:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== go build"
go build -o bin/aofserver ./cmd/server

echo "== go test -race"
go test -race -count=1 -timeout 14m ./... 2>&1 | tee /tmp/aofserver-test.log

# Short fuzzing of every parser that reads untrusted bytes (requests,
# manifests, AOF files, RDB streams, DUMP payloads, config). A crasher fails
# the run and is saved under the package's testdata/fuzz for a regression
# test. FUZZTIME=0 skips this step.
FUZZTIME=${FUZZTIME:-8s}
if [ "$FUZZTIME" != 0 ]; then
  echo "== go test -fuzz ($FUZZTIME each)"
  for target in \
    ./resp:FuzzRequestReader \
    ./server:FuzzDispatch \
    ./manifest:FuzzParse \
    ./aof:FuzzLoad \
    ./rdb:FuzzDecode \
    ./rdb:FuzzParseDumpPayload \
    ./rstring:FuzzMatch \
    ./rstring:FuzzString2ll \
    ./rstring:FuzzString2ull \
    ./rstring:FuzzStrtoll \
    ./rstring:FuzzSplitArgs \
    ./config:FuzzParseRedisConf; do
    pkg=${target%%:*}
    name=${target##*:}
    corpus="$pkg/testdata/fuzz/$name"
    before=$( (ls "$corpus" 2>/dev/null || true) | wc -l)
    if ! out=$(go test -run='^$' -fuzz="^${name}\$" -fuzztime="$FUZZTIME" -parallel=2 "$pkg" 2>&1); then
      echo "$out" | grep -v '^fuzz: elapsed' | tail -60
      after=$( (ls "$corpus" 2>/dev/null || true) | wc -l)
      if [ "$after" -gt "$before" ]; then
        echo "FAIL: fuzz target $name in $pkg found a crasher, saved under $corpus"
        exit 1
      fi
      # No input was saved: the fuzzing engine itself failed (e.g. a worker
      # starved on a loaded machine), not the code under test.
      echo "WARNING: fuzzing $name did not complete (no crasher saved)"
      continue
    fi
    echo "$out" | tail -2
  done
fi
