package server

import (
	"strconv"

	seam "github.com/aofserver/aofserver/command"
)

// Keyspace notifications (Redis's notify.c). Commands call s.notify next to
// their signalModifiedKey/dirty points with the event's class; the message
// goes through the ordinary pub/sub path (s.publish), so subscribers get
// it exactly like a PUBLISH issued at that point of the command.

// Notification classes: Redis's NOTIFY_* values (config.Config.NotifyFlags),
// the seam's, which the command groups outside this package use too.
const (
	notifyKeyspace = seam.NotifyKeyspace
	notifyKeyevent = seam.NotifyKeyevent
	notifyGeneric  = seam.NotifyGeneric
	notifyString   = seam.NotifyString
	notifyList     = seam.NotifyList
	notifySet      = seam.NotifySet
	notifyHash     = seam.NotifyHash
	notifyZset     = seam.NotifyZset
	notifyExpired  = seam.NotifyExpired
	notifyEvicted  = seam.NotifyEvicted
	notifyStream   = seam.NotifyStream
	notifyKeyMiss  = seam.NotifyKeyMiss
	notifyNew      = seam.NotifyNew
)

// notifyUnknown marks s.notifyFlags as not yet read from the
// configuration: every class bit is set, so the first notify takes the
// slow path and loads the real value.
const notifyUnknown = -1

// notify publishes event for key in db if class is enabled by
// notify-keyspace-events. With notifications off it costs one integer test.
func (s *Server) notify(class int, event string, key []byte, db int) {
	if s.notifyFlags&class == 0 {
		return
	}
	s.notifySlow(class, event, key, db)
}

// reloadNotifyFlags re-reads notify-keyspace-events (CONFIG SET).
func (s *Server) reloadNotifyFlags() {
	s.notifyFlags = s.cfg.NotifyFlags()
}

func (s *Server) notifySlow(class int, event string, key []byte, db int) {
	if s.notifyFlags == notifyUnknown {
		s.reloadNotifyFlags()
	}
	flags := s.notifyFlags
	if flags&class == 0 || s.loading {
		return
	}
	if flags&(notifyKeyspace|notifyKeyevent) == 0 {
		return
	}
	if !s.pubsub.Listened() {
		return // nobody listens: skip building the channel names
	}
	var buf [24]byte
	dbs := strconv.AppendInt(buf[:0], int64(db), 10)
	if flags&notifyKeyspace != 0 {
		ch := make([]byte, 0, len("__keyspace@__:")+len(dbs)+len(key))
		ch = append(ch, "__keyspace@"...)
		ch = append(ch, dbs...)
		ch = append(ch, "__:"...)
		ch = append(ch, key...)
		s.publish(ch, []byte(event))
	}
	if flags&notifyKeyevent != 0 {
		ch := make([]byte, 0, len("__keyevent@__:")+len(dbs)+len(event))
		ch = append(ch, "__keyevent@"...)
		ch = append(ch, dbs...)
		ch = append(ch, "__:"...)
		ch = append(ch, event...)
		s.publish(ch, key)
	}
}

// keymiss sends the "keymiss" event (class m) of a read lookup that found
// nothing (Redis's lookupKey without LOOKUP_NONOTIFY).
func (s *Server) keymiss(c *client, key []byte) {
	s.notify(notifyKeyMiss, "keymiss", key, c.db.id)
}
