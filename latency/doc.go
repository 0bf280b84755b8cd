// Package latency is Redis 7.0.15's latency monitor (latency.c) without
// server state: per event, a ring of the worst latency of each of the last
// 160 seconds and the all-time maximum; LATENCY LATEST, HISTORY, RESET and
// GRAPH's views of them; and DOCTOR's report, word for word, from the
// events and the settings it advises on.
//
// The executor records with MaybeAdd, passing latency-monitor-threshold;
// other goroutines (the AOF writer, job clean-up) with Observe, which uses
// the threshold MaybeAdd last saw: every command passes through MaybeAdd,
// CONFIG SET latency-monitor-threshold included.
package latency
