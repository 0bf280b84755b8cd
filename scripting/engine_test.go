package scripting

import (
	"context"
	"testing"
)

// stubServer is a Server for tests of the Lua engine alone: no command
// runs (the server's tests run scripts against the real thing).
type stubServer struct{}

func (stubServer) NewClient(id int64) Client                            { return stubClient{} }
func (stubServer) Lookup(argv [][]byte) (Command, bool)                 { return nil, false }
func (stubServer) Refused(cmd Command, errText string)                  {}
func (stubServer) WriteRefusal() string                                 { return "" }
func (stubServer) NoReplicas() bool                                     { return false }
func (stubServer) StartOOM(caller Caller) bool                          { return false }
func (stubServer) FcallOOM(caller Caller) bool                          { return false }
func (stubServer) Loading() bool                                        { return false }
func (stubServer) Wrote()                                               {}
func (stubServer) Killed() bool                                         { return false }
func (stubServer) End()                                                 {}
func (stubServer) Log(level int, msg string)                            {}
func (stubServer) Start(Caller, [][]byte, string, bool) context.Context { return nil }

type stubClient struct{}

func (stubClient) Prepare(caller Caller)                       {}
func (stubClient) Release()                                    {}
func (stubClient) SetRESP(v int)                               {}
func (stubClient) ACLDenial(cmd Command, argv [][]byte) string { return "" }
func (stubClient) ACLAllowed(cmd Command, argv [][]byte) bool  { return true }
func (stubClient) Call(cmd Command, argv [][]byte) []byte      { return nil }

// TestLuaFrameLayout: the error handlers read gopher-lua's call frames by
// reflection; if its layout changed they fall back to unnamed messages
// ("attempt to index a nil value" without "local 't'"), which this test
// turns into a failure.
func TestLuaFrameLayout(t *testing.T) {
	if !luaFrameLayoutOK {
		t.Fatal("gopher-lua's callFrame/registry layout is not the expected one: runtime errors lose their variable names")
	}
	if luaFrameOff == 0 && luaNRetOff == 0 {
		t.Fatal("gopher-lua's call frame layout changed: redis.call builds every reply")
	}
}

// BenchmarkScriptCompile is the compilation of a new script (EVAL of a
// body not in the cache): parse, compile, the locals' ranges.
func BenchmarkScriptCompile(b *testing.B) {
	body := []byte(`local key, n = KEYS[1], tonumber(ARGV[1])
local cur = redis.call('get', key)
if cur then local v = tonumber(cur) if v > n then return v end end
for i = 1, 3 do local x = i * 2 redis.call('incrby', key, x) end
local t = {}
for k, v in pairs({a = 1, b = 2}) do t[#t + 1] = k .. v end
local function f(a, b) return a + b end
return f(1, 2)`)
	e := New(stubServer{}, "7.0.15").evalEngine()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if msg := e.compile("bench", body); msg != "" {
			b.Fatal(msg)
		}
	}
}
