package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// go-redis v9 says HELLO 3 first (RESP3 unless Protocol: 2).
func TestGoRedisClient(t *testing.T) {
	ts := startOurServer(t, "--requirepass", "secret")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: ts.addr, Password: "secret", DB: 2})
	defer rdb.Close()
	if err := rdb.Set(ctx, "k", "v", time.Minute).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if v, err := rdb.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET: %q %v", v, err)
	}
	if ttl, err := rdb.TTL(ctx, "k").Result(); err != nil || ttl <= 0 {
		t.Fatalf("TTL: %v %v", ttl, err)
	}
	pipe := rdb.TxPipeline()
	incr := pipe.Incr(ctx, "n")
	pipe.Expire(ctx, "n", time.Hour)
	if _, err := pipe.Exec(ctx); err != nil || incr.Val() != 1 {
		t.Fatalf("MULTI/EXEC: %v %d", err, incr.Val())
	}
	if err := rdb.HSet(ctx, "h", "f", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if m, err := rdb.HGetAll(ctx, "h").Result(); err != nil || m["f"] != "1" {
		t.Fatalf("HGETALL: %v %v", m, err)
	}
	if n, err := rdb.DBSize(ctx).Result(); err != nil || n != 3 {
		t.Fatalf("DBSIZE in db 2: %d %v", n, err)
	}
	bad := redis.NewClient(&redis.Options{Addr: ts.addr, Password: "wrong"})
	defer bad.Close()
	if err := bad.Ping(ctx).Err(); err == nil || err.Error() != "WRONGPASS invalid username-password pair or user is disabled." {
		t.Fatalf("wrong password: %v", err)
	}
}

// go-redis v9 on RESP3 (Protocol: 3): maps, sets, doubles, pushes.
func TestGoRedisRESP3(t *testing.T) {
	ts := startOurServer(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: ts.addr, Protocol: 3})
	defer rdb.Close()
	if err := rdb.HSet(ctx, "h", "a", "1", "b", "2").Err(); err != nil {
		t.Fatal(err)
	}
	if m, err := rdb.HGetAll(ctx, "h").Result(); err != nil || len(m) != 2 || m["a"] != "1" || m["b"] != "2" {
		t.Fatalf("HGETALL: %v %v", m, err)
	}
	if m, err := rdb.HGetAll(ctx, "nope").Result(); err != nil || len(m) != 0 {
		t.Fatalf("HGETALL nope: %v %v", m, err)
	}
	if err := rdb.ZAdd(ctx, "z", redis.Z{Score: 1.5, Member: "a"}, redis.Z{Score: 2, Member: "b"}).Err(); err != nil {
		t.Fatal(err)
	}
	zs, err := rdb.ZRangeWithScores(ctx, "z", 0, -1).Result()
	if err != nil || len(zs) != 2 || zs[0].Member != "a" || zs[0].Score != 1.5 || zs[1].Score != 2 {
		t.Fatalf("ZRANGE WITHSCORES: %v %v", zs, err)
	}
	if sc, err := rdb.ZScore(ctx, "z", "a").Result(); err != nil || sc != 1.5 {
		t.Fatalf("ZSCORE: %v %v", sc, err)
	}
	if sc, err := rdb.ZIncrBy(ctx, "z", 1, "a").Result(); err != nil || sc != 2.5 {
		t.Fatalf("ZINCRBY: %v %v", sc, err)
	}
	if p, err := rdb.ZPopMin(ctx, "z", 1).Result(); err != nil || len(p) != 1 || p[0].Member != "b" {
		t.Fatalf("ZPOPMIN: %v %v", p, err)
	}
	if err := rdb.SAdd(ctx, "s", "x", "y").Err(); err != nil {
		t.Fatal(err)
	}
	if m, err := rdb.SMembers(ctx, "s").Result(); err != nil || len(m) != 2 {
		t.Fatalf("SMEMBERS: %v %v", m, err)
	}
	if _, err := rdb.Get(ctx, "nope").Result(); err != redis.Nil {
		t.Fatalf("GET nope: %v", err)
	}
	if cfg, err := rdb.ConfigGet(ctx, "maxmemory").Result(); err != nil || cfg["maxmemory"] != "0" {
		t.Fatalf("CONFIG GET: %v %v", cfg, err)
	}
	if info, err := rdb.Info(ctx, "server").Result(); err != nil || !strings.HasPrefix(info, "# Server") {
		t.Fatalf("INFO: %.30q %v", info, err)
	}
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: "st", ID: "1-1", Values: []string{"f", "v"}}).Err(); err != nil {
		t.Fatal(err)
	}
	xs, err := rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{"st", "0"}}).Result()
	if err != nil || len(xs) != 1 || xs[0].Stream != "st" || len(xs[0].Messages) != 1 || xs[0].Messages[0].Values["f"] != "v" {
		t.Fatalf("XREAD: %v %v", xs, err)
	}
	if v, err := rdb.Eval(ctx, "redis.setresp(3); return redis.call('hgetall', KEYS[1])", []string{"h"}).Result(); err != nil {
		t.Fatalf("EVAL: %v %v", v, err)
	} else if m, ok := v.(map[any]any); !ok || m["a"] != "1" {
		t.Fatalf("EVAL map: %#v", v)
	}

	sub := rdb.Subscribe(ctx, "ch")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil { // the subscription confirmation
		t.Fatal(err)
	}
	if n, err := rdb.Publish(ctx, "ch", "hello").Result(); err != nil || n != 1 {
		t.Fatalf("PUBLISH: %v %v", n, err)
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	msg, err := sub.ReceiveMessage(rctx)
	if err != nil || msg.Channel != "ch" || msg.Payload != "hello" {
		t.Fatalf("message: %v %v", msg, err)
	}
	if err := sub.PSubscribe(ctx, "c*"); err != nil {
		t.Fatal(err)
	}
	if m, err := sub.Receive(rctx); err != nil {
		t.Fatal(err)
	} else if sm, ok := m.(*redis.Subscription); !ok || sm.Kind != "psubscribe" || sm.Count != 2 {
		t.Fatalf("PSUBSCRIBE: %#v", m)
	}
	rdb.Publish(ctx, "ch", "again")
	for i := 0; i < 2; i++ {
		msg, err := sub.ReceiveMessage(rctx)
		if err != nil || msg.Payload != "again" {
			t.Fatalf("message %d: %v %v", i, msg, err)
		}
	}
	if err := sub.Ping(ctx); err != nil {
		t.Fatalf("PING while subscribed: %v", err)
	}
}
