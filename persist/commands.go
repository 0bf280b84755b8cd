package persist

import "errors"

// The persistence commands' decisions, as Redis's saveCommand,
// bgsaveCommand and bgrewriteaofCommand make them: each returns the
// status reply, or an error whose text is the error reply. inExec: the
// command runs inside MULTI/EXEC or a script, where a job is only
// scheduled.

// RDBInProgress reports an RDB being written in the background: a BGSAVE,
// or another snapshot (a diskless transfer: Redis's RDB child with a
// socket target).
func (p *Persister) RDBInProgress() bool {
	return p.Jobs.RDB() != nil || (p.env.OtherSnapshot != nil && p.env.OtherSnapshot())
}

var errBgsaveInProgress = errors.New("ERR Background save already in progress")

// SaveCommand is SAVE.
func (p *Persister) SaveCommand() error {
	if p.RDBInProgress() {
		return errBgsaveInProgress
	}
	if err := p.SaveRDB(); err != nil {
		return errors.New("ERR")
	}
	return nil
}

// BGSAVECommand is BGSAVE [SCHEDULE].
func (p *Persister) BGSAVECommand(schedule, inExec bool) (string, error) {
	switch {
	case p.RDBInProgress():
		return "", errBgsaveInProgress
	case p.ChildActive() || inExec:
		if schedule || inExec {
			p.BgsaveScheduled = true
			return "Background saving scheduled", nil
		}
		return "", errors.New("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.")
	}
	if _, err := p.BGSAVE(); err != nil {
		return "", errors.New("ERR " + err.Error())
	}
	return "Background saving started", nil
}

// BGREWRITEAOFCommand is BGREWRITEAOF.
func (p *Persister) BGREWRITEAOFCommand(inExec bool) (string, error) {
	switch {
	case p.Jobs.AOF() != nil:
		return "", errors.New("ERR Background append only file rewriting already in progress")
	case p.ChildActive() || inExec:
		p.RewriteScheduled = true
		p.RewriteFailures = 0
		return "Background append only file rewriting scheduled", nil
	}
	if err := p.RewriteBackground(); err != nil {
		return "", errors.New("ERR Can't execute an AOF background rewriting. Please check the server logs for more information.")
	}
	return "Background append only file rewriting started", nil
}
