package server

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// go-redis v9 says HELLO 3 first; our -NOPROTO makes it fall back to RESP2
// and everything works as with a Redis that lacks RESP3.
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
