// Package resp is the Redis protocol as Redis 7.0.15 speaks it, without
// client or server state.
//
// Reading (reader.go): processMultibulkBuffer and processInlineBuffer,
// with their limits and their "Protocol error: ..." texts, and the model
// of the query buffer Redis would hold (CLIENT LIST qbuf,
// clientsCronResizeQueryBuffer). The caller feeds the bytes it reads and
// runs the commands parsed.
//
// Writing (write.go): the reply encoders whose bytes depend only on the
// protocol the client chose (RESP2 or RESP3), as addReplyNull,
// addReplyMapLen, addReplyDouble, ... write them.
package resp
