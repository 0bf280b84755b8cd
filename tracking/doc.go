// Package tracking owns Redis 7.0's client-side caching (tracking.c): the
// tracking table (which clients may cache which key), the BCAST prefix
// table and the keys modified under each prefix until the next broadcast,
// the invalidation messages (a RESP3 push, or a Pub/Sub message on
// __redis__:invalidate to a REDIRECT client), the invalidations held back
// until the running command's reply is done, and tracking-table-max-keys.
//
// A client is a Peer; its own tracking state (the CLIENT TRACKING flags,
// its redirect, its prefixes) is a Client the server's client embeds. What
// the package asks of the server is Host: a client by ID, the client whose
// command runs, delivering a message to a client, and a cron (Redis's
// serverCron / beforeSleep part) for work no command end does. Parsing
// CLIENT TRACKING, finding a command's keys and the call() glue stay the
// server's.
//
// Everything runs under the server's lock: nothing here locks.
package tracking
