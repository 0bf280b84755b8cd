package pubsub

import (
	"sort"

	"github.com/tidwall/redcon"

	"github.com/aofserver/aofserver/resp"
	"github.com/aofserver/aofserver/rstring"
)

// Kind is a subscription namespace.
type Kind int

const (
	Channel Kind = iota // SUBSCRIBE
	Pattern             // PSUBSCRIBE
	Shard               // SSUBSCRIBE: a namespace of its own that patterns never match
	kinds
)

// Subscriber is a client as the registries know it. Its identity (a
// pointer) is the registries' key.
type Subscriber interface {
	RESP() int // the protocol its messages are framed in (2 or 3)
}

// Host is what the registry asks of the server.
type Host interface {
	// Deliver hands a message to a subscriber: header, then payload,
	// then tail.
	Deliver(to Subscriber, header, payload, tail []byte)
}

// Subs is one client's subscriptions.
type Subs struct {
	names [kinds]map[string]struct{}
	// patOrder is the patterns in subscription order (Redis keeps a list:
	// PUNSUBSCRIBE without arguments replies in that order).
	patOrder []string
}

// Count is Redis's clientSubscriptionsCount: the count (P)SUBSCRIBE and
// (P)UNSUBSCRIBE reply, which leaves shard channels out.
func (s *Subs) Count() int { return len(s.names[Channel]) + len(s.names[Pattern]) }

// Total counts shard channels too: a client stays in pub/sub mode while
// it is not zero (clientTotalPubSubSubscriptionCount).
func (s *Subs) Total() int { return s.Count() + len(s.names[Shard]) }

// Len is the number of subscriptions of kind k.
func (s *Subs) Len(k Kind) int { return len(s.names[k]) }

// Names lists the subscriptions of kind k: patterns in subscription
// order, channels sorted (the order of an UNSUBSCRIBE without arguments).
func (s *Subs) Names(k Kind) []string {
	if k == Pattern {
		return append([]string(nil), s.patOrder...)
	}
	out := make([]string, 0, len(s.names[k]))
	for n := range s.names[k] {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Any reports whether f holds for one of the subscriptions of kind k.
func (s *Subs) Any(k Kind, f func(name string) bool) bool {
	for n := range s.names[k] {
		if f(n) {
			return true
		}
	}
	return false
}

// Registry is the server's registries.
type Registry struct {
	host Host
	subs [kinds]map[string]map[Subscriber]struct{}
}

// New returns empty registries delivering through h.
func New(h Host) *Registry {
	r := &Registry{host: h}
	for k := range r.subs {
		r.subs[k] = map[string]map[Subscriber]struct{}{}
	}
	return r
}

// Subscribe is pubsubSubscribeChannel / pubsubSubscribePattern: sub (whose
// side is subs) joins name in namespace k, if not already there.
func (r *Registry) Subscribe(sub Subscriber, subs *Subs, k Kind, name []byte) {
	set := subs.names[k]
	if set == nil {
		set = map[string]struct{}{}
		subs.names[k] = set
	}
	if _, ok := set[string(name)]; ok {
		return
	}
	n := string(name)
	set[n] = struct{}{}
	if k == Pattern {
		subs.patOrder = append(subs.patOrder, n)
	}
	m := r.subs[k][n]
	if m == nil {
		m = map[Subscriber]struct{}{}
		r.subs[k][n] = m
	}
	m[sub] = struct{}{}
}

// Unsubscribe removes sub from name in namespace k, reporting whether it
// was subscribed.
func (r *Registry) Unsubscribe(sub Subscriber, subs *Subs, k Kind, name string) bool {
	set := subs.names[k]
	if _, ok := set[name]; !ok {
		return false
	}
	delete(set, name)
	if k == Pattern {
		for i, p := range subs.patOrder {
			if p == name {
				subs.patOrder = append(subs.patOrder[:i:i], subs.patOrder[i+1:]...)
				break
			}
		}
	}
	if m := r.subs[k][name]; m != nil {
		delete(m, sub)
		if len(m) == 0 {
			delete(r.subs[k], name)
		}
	}
	return true
}

// UnsubscribeAll drops every subscription of sub (RESET, a client gone).
func (r *Registry) UnsubscribeAll(sub Subscriber, subs *Subs) {
	for k := range subs.names {
		for n := range subs.names[k] {
			r.Unsubscribe(sub, subs, Kind(k), n)
		}
	}
}

// Count is the number of channels (patterns, shard channels) with
// subscribers: INFO's pubsub_* fields, PUBSUB NUMPAT.
func (r *Registry) Count(k Kind) int { return len(r.subs[k]) }

// Listened reports whether a PUBLISH would reach anyone at all (keyspace
// events skip building their channel names otherwise).
func (r *Registry) Listened() bool {
	return len(r.subs[Channel]) > 0 || len(r.subs[Pattern]) > 0
}

// NumSub is the number of subscribers of channel name in namespace k
// (PUBSUB NUMSUB / SHARDNUMSUB).
func (r *Registry) NumSub(k Kind, name []byte) int { return len(r.subs[k][string(name)]) }

// Channels lists the channels of namespace k with subscribers, sorted,
// those matching pattern when it is not nil (PUBSUB CHANNELS /
// SHARDCHANNELS).
func (r *Registry) Channels(k Kind, pattern []byte) []string {
	var out []string
	for n := range r.subs[k] {
		if pattern != nil && !rstring.Match(pattern, n, false) {
			continue
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// crlf ends every message; map lookups by string(b) below do not allocate.
var crlf = []byte("\r\n")

// Publish delivers a message to the subscribers of channel and of the
// patterns matching it, and returns the number of receivers. Each
// subscriber gets the header and the payload itself: no message is
// assembled (a big payload would be copied once more, as garbage, per
// PUBLISH).
func (r *Registry) Publish(channel, msg []byte) int {
	n := 0
	if m := r.subs[Channel][string(channel)]; m != nil {
		n += r.fanOut(m, "message", "", channel, msg)
	}
	for pat, m := range r.subs[Pattern] {
		if rstring.Match(pat, channel, false) {
			n += r.fanOut(m, "pmessage", pat, channel, msg)
		}
	}
	return n
}

// SPublish delivers a message to the subscribers of a shard channel
// ("smessage"; patterns do not see shard channels).
func (r *Registry) SPublish(channel, msg []byte) int {
	m := r.subs[Shard][string(channel)]
	if m == nil {
		return 0
	}
	return r.fanOut(m, "smessage", "", channel, msg)
}

// fanOut delivers to each of m, the header built once per RESP version;
// pat is the matching pattern of a "pmessage".
func (r *Registry) fanOut(m map[Subscriber]struct{}, kind, pat string, channel, msg []byte) int {
	var h [4][]byte
	for c := range m {
		v := c.RESP()
		if h[v] == nil {
			if kind == "pmessage" {
				h[v] = resp.AppendPushLen(nil, v, 4)
				h[v] = redcon.AppendBulkString(h[v], kind)
				h[v] = redcon.AppendBulkString(h[v], pat)
			} else {
				h[v] = resp.AppendPushLen(nil, v, 3)
				h[v] = redcon.AppendBulkString(h[v], kind)
			}
			h[v] = redcon.AppendBulk(h[v], channel)
			h[v] = resp.AppendBulkHeader(h[v], len(msg))
		}
		r.host.Deliver(c, h[v], msg, crlf)
	}
	return len(m)
}
