package persist

import (
	"errors"

	"github.com/aofserver/aofserver/aof"
	"github.com/aofserver/aofserver/rstring"
)

// StartAppendOnly turns the AOF on at runtime (CONFIG SET appendonly yes)
// as Redis does (AOF_WAIT_REWRITE): commands go to a temporary incr file
// while a rewrite writes the base from a snapshot in a child process; its
// completion names both in a new manifest. No pause grows with the
// dataset. inExec: the command runs inside EXEC or a script, where the
// rewrite is only scheduled.
func (p *Persister) StartAppendOnly(inExec bool) error {
	a, err := aof.Open(p.env.AOF.Options())
	if err != nil {
		return err
	}
	p.env.AOF.Wire(a)
	switch {
	case p.Jobs.RDB() != nil:
		p.warning("AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.")
	case inExec:
		p.warning("AOF was enabled during a transaction. An AOF background was scheduled to start when possible.")
	case p.Jobs.AOF() != nil:
		// A rewrite started while the AOF was off cannot become this
		// AOF's base: it did not start a new incr file.
		p.warning("AOF was enabled but there is already an AOF rewriting in background. Stopping background AOF and starting a rewrite now.")
		p.Jobs.killSync(p.Jobs.AOF())
	}
	if err := a.StartWaiting(); err != nil {
		return err
	}
	p.env.AOF.SetAOF(a)
	if p.ChildActive() || inExec {
		p.RewriteScheduled = true
		return nil
	}
	if err := p.Rewrite(); err != nil {
		p.env.AOF.SetAOF(nil)
		a.Close()
		p.warning("Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.")
		return err
	}
	return nil
}

// StopAppendOnly turns the AOF off (CONFIG SET appendonly no), as Redis:
// flush, fsync, close, then kill a running rewrite and wait for it.
func (p *Persister) StopAppendOnly() {
	if err := p.env.AOF.AOF().Close(); err != nil {
		p.warning("Error closing the AOF: %v", err)
	}
	p.env.AOF.SetAOF(nil)
	p.RewriteScheduled = false
	if j := p.Jobs.AOF(); j != nil {
		p.Jobs.killSync(j)
	}
}

// ShutdownFlags are SHUTDOWN's options.
type ShutdownFlags struct {
	Save, NoSave, Force bool
}

// PrepareShutdown stops the jobs, syncs the AOF and saves dump.rdb when
// configured, as Redis 7.0's finishShutdown; loading: the dataset is
// still loading. On error nothing is closed and the server goes on
// serving: a save that fails (or an AOF still waiting for its first base)
// aborts the shutdown unless Force.
func (p *Persister) PrepareShutdown(f ShutdownFlags, loading bool) error {
	if loading {
		// Never overwrite dump.rdb with half-loaded data.
		f.Save, f.NoSave = false, true
	}
	if j := p.Jobs.RDB(); j != nil {
		p.warning("There is a child saving an .rdb. Killing it!")
		j.Kill()
	}
	a := p.env.AOF.AOF()
	if a != nil {
		if j := p.Jobs.AOF(); j != nil {
			if a.Waiting() {
				if !f.Force {
					p.warning("Writing initial AOF, can't exit.")
					return p.shutdownFailed(errors.New("writing initial AOF"))
				}
				p.warning("Writing initial AOF. Exit anyway.")
			}
			p.warning("There is a child rewriting the AOF. Killing it!")
			p.Jobs.killSync(j)
		}
		p.notice("Calling fsync() on the AOF file.")
		if err := a.Sync(a.Offset(), false); err != nil {
			p.warning("Fail to fsync the AOF file: %s.", rstring.Strerror(err))
		}
	}
	if (len(p.env.Config.Save) > 0 && !f.NoSave) || f.Save {
		p.notice("Saving the final RDB snapshot before exiting.")
		if err := p.SaveRDB(); err != nil {
			if !f.Force {
				p.warning("Error trying to save the DB, can't exit.")
				return p.shutdownFailed(err)
			}
			p.warning("Error trying to save the DB. Exit anyway.")
		}
	}
	if a != nil {
		// Close writes and fsyncs what is left, whatever the policy.
		if err := a.Close(); err != nil {
			p.warning("Error closing the AOF: %v", err)
		}
		p.env.AOF.SetAOF(nil)
	}
	return nil
}

func (p *Persister) shutdownFailed(err error) error {
	p.warning("Errors trying to shut down the server. Check the logs for more information.")
	return err
}

// FlushallSave is FLUSHALL's save: a running BGSAVE is killed (reaped as
// Redis's killRDBChild: "terminated by signal 10"), and dump.rdb is
// written at once when save points are set.
func (p *Persister) FlushallSave() {
	if j := p.Jobs.RDB(); j != nil {
		j.Kill()
	}
	if len(p.env.Config.Save) > 0 {
		p.SaveRDB()
	}
}
