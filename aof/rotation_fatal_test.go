package aof

import (
	"errors"
	"testing"
	"time"
)

// TestFatalFailsPendingRotation: a fatal write or fsync error (another
// step, or an overlapped Sync's fdatasync) that comes after StartRewrite
// queued the incr rotation but before any step took it stops the writer
// for good; the rotation must fail then, or Install waits for a switch
// that never comes (seen as a hang of TestCrashAndFaultsDuringRewrite).
func TestFatalFailsPendingRotation(t *testing.T) {
	c := newCrashDir(t)
	a, _ := startFresh(t, c, Always, func(o *Options) { o.OnFatal = func(error) {} })
	defer a.Close()
	a.stepMu.Lock() // no step may take the rotation before the fatal error
	r, err := a.StartRewrite(7)
	if err != nil {
		a.stepMu.Unlock()
		t.Fatal(err)
	}
	a.setFatal(errors.New("injected fsync failure"))
	a.stepMu.Unlock()
	a.wake()
	done := make(chan error, 1)
	go func() { done <- r.WaitSwitched() }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("rotation reported success after a fatal error")
		}
	case <-time.After(30 * time.Second): // hang guard
		t.Fatal("WaitSwitched still blocked 30 s after the fatal error")
	}
}
