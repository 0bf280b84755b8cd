package cmdmeta

import (
	"github.com/aofserver/aofserver/resp"
	"github.com/tidwall/redcon"
)

// The COMMAND INFO and COMMAND DOCS replies, as Redis 7.0's server.c
// writes them, in protocol 2 or 3 (HELLO).

// AppendInfo appends m's COMMAND INFO entry (addReplyCommandInfo) to b.
func AppendInfo(b []byte, proto int, m *Meta) []byte {
	w := replyWriter{b, proto}
	w.info(m)
	return w.b
}

// AppendDocs appends m's COMMAND DOCS entry (addReplyCommandDocs: the map
// that follows the command's name) to b.
func AppendDocs(b []byte, proto int, m *Meta) []byte {
	w := replyWriter{b, proto}
	w.docs(m)
	return w.b
}

type replyWriter struct {
	b     []byte
	proto int
}

func (w *replyWriter) arrayLen(n int)      { w.b = redcon.AppendArray(w.b, n) }
func (w *replyWriter) mapLen(n int)        { w.b = resp.AppendMapLen(w.b, w.proto, n) }
func (w *replyWriter) setLen(n int)        { w.b = resp.AppendSetLen(w.b, w.proto, n) }
func (w *replyWriter) bulkString(s string) { w.b = redcon.AppendBulkString(w.b, s) }
func (w *replyWriter) status(s string)     { w.b = redcon.AppendString(w.b, s) }
func (w *replyWriter) integer(n int)       { w.b = redcon.AppendInt(w.b, int64(n)) }

func (w *replyWriter) statusSet(list []string) {
	w.setLen(len(list))
	for _, s := range list {
		w.status(s)
	}
}

func (w *replyWriter) info(m *Meta) {
	w.arrayLen(10)
	w.bulkString(m.Name)
	w.integer(m.Arity)
	w.statusSet(m.Flags)
	w.integer(m.FirstKey)
	w.integer(m.LastKey)
	w.integer(m.Step)
	w.statusSet(m.ACL)
	w.setLen(len(m.Tips))
	for _, t := range m.Tips {
		w.bulkString(t)
	}
	w.setLen(len(m.KeySpecs))
	for i := range m.KeySpecs {
		w.keySpec(&m.KeySpecs[i])
	}
	if m.Subs == nil {
		w.setLen(0)
		return
	}
	w.arrayLen(len(m.Subs))
	for _, sub := range m.Subs {
		w.info(sub)
	}
}

// keySpec is one element of addReplyCommandKeySpecs.
func (w *replyWriter) keySpec(sp *KeySpec) {
	if sp.Notes != "" {
		w.mapLen(4)
		w.bulkString("notes")
		w.bulkString(sp.Notes)
	} else {
		w.mapLen(3)
	}
	w.bulkString("flags")
	w.statusSet(sp.Flags)
	w.bulkString("begin_search")
	w.mapLen(2)
	w.bulkString("type")
	w.bulkString(sp.BS)
	w.bulkString("spec")
	switch sp.BS {
	case "index":
		w.mapLen(1)
		w.bulkString("index")
		w.integer(sp.Index)
	case "keyword":
		w.mapLen(2)
		w.bulkString("keyword")
		w.bulkString(sp.Keyword)
		w.bulkString("startfrom")
		w.integer(sp.StartFrom)
	default:
		w.mapLen(0)
	}
	w.bulkString("find_keys")
	w.mapLen(2)
	w.bulkString("type")
	w.bulkString(sp.FK)
	w.bulkString("spec")
	switch sp.FK {
	case "range":
		w.mapLen(3)
		w.bulkString("lastkey")
		w.integer(sp.LastKey)
		w.bulkString("keystep")
		w.integer(sp.KeyStep)
		w.bulkString("limit")
		w.integer(sp.Limit)
	case "keynum":
		w.mapLen(3)
		w.bulkString("keynumidx")
		w.integer(sp.KeyNumIdx)
		w.bulkString("firstkey")
		w.integer(sp.FirstKey)
		w.bulkString("keystep")
		w.integer(sp.KeyStep)
	default:
		w.mapLen(0)
	}
}

func (w *replyWriter) docs(m *Meta) {
	n := 3
	for _, present := range []bool{m.Complexity != "", m.DocFlags != nil, m.DeprecatedSince != "",
		m.ReplacedBy != "", m.History != nil, m.Args != nil, m.Subs != nil} {
		if present {
			n++
		}
	}
	w.mapLen(n)
	w.bulkString("summary")
	w.bulkString(m.Summary)
	w.bulkString("since")
	w.bulkString(m.Since)
	w.bulkString("group")
	w.bulkString(m.Group)
	if m.Complexity != "" {
		w.bulkString("complexity")
		w.bulkString(m.Complexity)
	}
	if m.DocFlags != nil {
		w.bulkString("doc_flags")
		w.statusSet(m.DocFlags)
	}
	if m.DeprecatedSince != "" {
		w.bulkString("deprecated_since")
		w.bulkString(m.DeprecatedSince)
	}
	if m.ReplacedBy != "" {
		w.bulkString("replaced_by")
		w.bulkString(m.ReplacedBy)
	}
	if m.History != nil {
		w.bulkString("history")
		w.setLen(len(m.History))
		for _, h := range m.History {
			w.arrayLen(2)
			w.bulkString(h[0])
			w.bulkString(h[1])
		}
	}
	if m.Args != nil {
		w.bulkString("arguments")
		w.args(m.Args)
	}
	if m.Subs != nil {
		w.bulkString("subcommands")
		w.mapLen(len(m.Subs))
		for _, sub := range m.Subs {
			w.bulkString(sub.Name)
			w.docs(sub)
		}
	}
}

// args is addReplyCommandArgList.
func (w *replyWriter) args(args []Arg) {
	w.arrayLen(len(args))
	for i := range args {
		a := &args[i]
		n := 2
		hasToken := a.Token != "" || a.EmptyToken
		for _, present := range []bool{a.KeySpecIndex > 0, hasToken, a.Summary != "", a.Since != "",
			a.DeprecatedSince != "", a.Flags != nil, a.Args != nil} {
			if present {
				n++
			}
		}
		w.mapLen(n)
		w.bulkString("name")
		w.bulkString(a.Name)
		w.bulkString("type")
		w.bulkString(a.Type)
		if a.KeySpecIndex > 0 {
			w.bulkString("key_spec_index")
			w.integer(a.KeySpecIndex - 1)
		}
		if hasToken {
			w.bulkString("token")
			w.bulkString(a.Token)
		}
		if a.Summary != "" {
			w.bulkString("summary")
			w.bulkString(a.Summary)
		}
		if a.Since != "" {
			w.bulkString("since")
			w.bulkString(a.Since)
		}
		if a.DeprecatedSince != "" {
			w.bulkString("deprecated_since")
			w.bulkString(a.DeprecatedSince)
		}
		if a.Flags != nil {
			w.bulkString("flags")
			w.statusSet(a.Flags)
		}
		if a.Args != nil {
			w.bulkString("arguments")
			w.args(a.Args)
		}
	}
}
