package server

import "fmt"

// configMinReservedFDs is CONFIG_MIN_RESERVED_FDS: descriptors kept for
// listeners, log and persistence files besides the clients.
const configMinReservedFDs = 32

// adjustOpenFilesLimit is Redis's: raise RLIMIT_NOFILE to maxclients+32,
// or to the highest value of the form maxclients+32-16k the system
// allows, and lower maxclients to fit when even that is short. Redis
// tries every such value from the top; since a limit is accepted exactly
// when it is under a ceiling (the hard limit, or fs.nr_open for a
// privileged process), trying the best candidate under each ceiling
// gives the same outcome in at most three calls.
func (s *Server) adjustOpenFilesLimit() {
	maxfiles := uint64(s.cfg.MaxClients) + configMinReservedFDs
	cur, max, err := getNoFile()
	if err != nil {
		s.log.Warn().Msgf("Unable to obtain the current NOFILE limit (%v), assuming 1024 and setting the max clients configuration accordingly.", err)
		s.cfg.MaxClients = 1024 - configMinReservedFDs
		return
	}
	if cur >= maxfiles {
		return
	}
	// below is the best candidate not above ceiling.
	below := func(ceiling uint64) uint64 {
		if ceiling >= maxfiles {
			return maxfiles
		}
		return maxfiles - (maxfiles-ceiling+15)/16*16
	}
	best := cur
	var setErr error
	for _, cand := range []uint64{maxfiles, below(nrOpen()), below(max)} {
		if cand <= cur {
			continue
		}
		if setErr = setNoFile(cand); setErr == nil {
			best = cand
			break
		}
	}
	if best < maxfiles {
		old := s.cfg.MaxClients
		s.cfg.MaxClients = int(best) - configMinReservedFDs
		if best <= configMinReservedFDs {
			s.cfg.MaxClients = 1
		}
		s.log.Warn().Msgf("You requested maxclients of %d requiring at least %d max file descriptors.", old, maxfiles)
		s.log.Warn().Msgf("Server can't set maximum open files to %d because of OS error: %s.", maxfiles, errnoText(setErr))
		s.log.Warn().Msgf("Current maximum open files is %d. maxclients has been reduced to %d to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.", best, s.cfg.MaxClients)
		return
	}
	s.log.Info().Msgf("Increased maximum number of open files to %d (it was originally set to %d).", maxfiles, cur)
}

// updateMaxclients is CONFIG SET maxclients' apply step.
func (s *Server) updateMaxclients() error {
	want := s.cfg.MaxClients
	s.adjustOpenFilesLimit()
	if s.cfg.MaxClients != want {
		return fmt.Errorf("The operating system is not able to handle the specified number of clients, try with %d", s.cfg.MaxClients)
	}
	return nil
}
