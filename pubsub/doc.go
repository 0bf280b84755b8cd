// Package pubsub owns Redis 7.0's Pub/Sub registries (pubsub.c): who is
// subscribed to which channel, pattern and shard channel, the matching of
// a published channel against the patterns (rstring.Match, Redis's
// stringmatchlen), the fan-out of PUBLISH and SPUBLISH, and the figures
// PUBSUB CHANNELS / NUMSUB / NUMPAT / SHARDCHANNELS / SHARDNUMSUB and INFO
// report.
//
// A subscriber is the server's client, seen as a Subscriber (its RESP
// version frames its messages); its own side of the registries, the
// names it is subscribed to, is a Subs the client embeds. The commands
// themselves (replies, the client's pub/sub mode, DENY BLOCKING) stay the
// server's. What the registry asks of the server is Host: hand a message
// to a subscriber. A message crosses as its header, the payload itself
// and the trailing CRLF, so that a big payload is never copied into an
// assembled message.
//
// Everything runs on the server's executor: nothing here locks.
package pubsub
