package server

import (
	"time"

	"github.com/aofserver/aofserver/memsize"
)

// cronLoop is Redis's serverCron: hz times a second it takes the executor
// for a bounded slice of background work.
func (s *Server) cronLoop() {
	defer s.wg.Done()
	// The config is read under the executor: CONFIG SET rewrites it.
	cronHz := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		hz := s.cfg.Hz
		if hz <= 0 {
			hz = 10
		}
		return hz
	}
	hz := cronHz()
	t := time.NewTicker(time.Second / time.Duration(hz))
	defer t.Stop()
	var cronTick int64
	for {
		select {
		case <-s.closing:
			return
		case <-t.C:
		}
		now := time.Now()
		newHz := cronHz()
		if newHz != hz { // CONFIG SET hz applies at once, as in Redis
			hz = newHz
			t.Reset(time.Second / time.Duration(hz))
		}
		s.mu.Lock()
		if s.dbg.pauseCron { // DEBUG PAUSE-CRON 1: serverCron returns at once
			s.mu.Unlock()
			continue
		}
		// While a load or a busy script holds the executor and lends it,
		// this is Redis's whileBlockedCron, timed as such.
		blocked := s.loading || s.lendingRun() != nil
		if blocked {
			s.whileBlockedCron(func() { s.clientsCron(now, hz, cronTick) })
		} else {
			s.idleTimeout.Store(int64(s.cfg.Timeout))
			s.updateLRUClock()
			s.clientsCron(now, hz, cronTick)
		}
		cronTick++
		// A busy script lends the executor only so that waiting clients
		// can be told BUSY: no expiry, rehash or save may start mid-script.
		if !blocked {
			if s.activeExpire && s.cfg.ActiveExpireEnabled && s.repl.link == nil { // a replica's keys expire by its master's DELs
				s.activeExpireCycle(time.Second / time.Duration(hz) / 4)
			}
			for _, db := range s.dbs {
				db.keys.RehashStep(100)
				db.expires.RehashStep(100)
			}
			s.persist.Cron(time.Now())
			if cronTick%int64(hz) == 0 { // run_with_period(1000)
				s.migrate.closeTimedOut(now)
			}
		}
		if s.aof != nil {
			// What the cycle fed (expired keys' DELs) is written now, as
			// Redis's beforeSleep does after serverCron.
			s.aof.KickPending()
		}
		// run_with_period(100): the instantaneous metrics' samples.
		if period := 1000 / hz; 100 <= period || cronTick%int64(100/period) == 0 {
			ms := now.UnixMilli()
			st := &s.stats
			st.instOps.track(ms, st.totalCommands)
			replIn, replOut := st.netReplIn.Load(), st.netReplOut.Load()
			st.instIn.track(ms, st.netInput.Load()+replIn)
			st.instOut.track(ms, st.netOutput.Load()+replOut)
			st.instReplIn.track(ms, replIn)
			st.instReplOut.track(ms, replOut)
		}
		s.mu.Unlock()
	}
}

// activeExpireCycle deletes expired keys by sampling the expires tables,
// bounded by budget, as Redis's activeExpireCycle (slow mode).
func (s *Server) activeExpireCycle(budget time.Duration) {
	start := time.Now()
	now := s.nowMs()
	var expired [][]byte
	for _, db := range s.dbs {
		if db.expires.Len() == 0 {
			continue
		}
		for iter := 0; iter < 16; iter++ {
			sampled := 0
			expired = expired[:0]
			db.expireCursor = db.expires.Scan(db.expireCursor, func(k string, when *int64) {
				sampled++
				if *when <= now {
					expired = append(expired, []byte(k))
				}
			})
			for _, k := range expired {
				s.deleteExpired(db, k)
			}
			if db.expireCursor == 0 || time.Since(start) > budget {
				break
			}
			if sampled > 0 && len(expired)*10 < sampled && iter > 0 {
				break
			}
		}
		if time.Since(start) > budget {
			break
		}
	}
	s.stats.expireCycleCPU += time.Since(start).Milliseconds()
	s.latency.maybeAdd("expire-cycle", time.Since(start), s.cfg.LatencyMonitorThreshold)
}

// clientsCron is the part of Redis's clientsCron that resizes the query
// and reply buffers (clientsCronResizeQueryBuffer and
// clientsCronResizeOutputBuffer) and samples client_recent_max_input_buffer
// (clientsCronTrackExpansiveClients). Redis visits numclients/hz
// clients a call, at least 5 (CLIENTS_CRON_MIN_ITERATIONS): every client
// each call while they are few, else each about once a second, which is
// what the peak it resets measures. Under s.mu.
func (s *Server) clientsCron(now time.Time, hz int, tick int64) {
	all := len(s.clients) <= 5*hz
	unix, ms := now.Unix(), now.UnixMilli()
	for id, c := range s.clients {
		if !all && (id+tick)%int64(hz) != 0 {
			continue
		}
		c.rd.QB.CronResize(unix - c.lastInter.Load()/1e9)
		s.cronResizeReplyBuf(&c.rbuf, c.outHeld.Load(), ms)
		// clientsCronTrackExpansiveClients: the query buffer's allocation
		// (sdsZmallocSize) and a blocked command's arguments.
		alloc := c.rd.QB.Size()
		in := memsize.Jemalloc(memsize.SdsHdrSize(alloc) + alloc + 1)
		if bs := c.block; bs != nil {
			for _, a := range bs.argv {
				in += int64(len(a))
			}
			in += memsize.Jemalloc(8 * int64(min(len(bs.argv), 1024)))
		}
		s.stats.ibufPeak.note(in)
	}
}

// whileBlockedCron runs the cron's work while a load or a busy script
// holds the executor and records its duration as Redis's whileBlockedCron
// does: the "while-blocked-cron" latency event, timed on the millisecond
// clock (mstime) as latencyStartMonitor/latencyEndMonitor, so a run that
// crosses a millisecond boundary counts 1 ms. Under mu.
func (s *Server) whileBlockedCron(work func()) {
	start := time.Now().UnixMilli()
	s.idleTimeout.Store(int64(s.cfg.Timeout))
	s.updateLRUClock()
	work()
	ms := time.Now().UnixMilli() - start
	s.latency.maybeAdd("while-blocked-cron", time.Duration(ms)*time.Millisecond, s.cfg.LatencyMonitorThreshold)
}
