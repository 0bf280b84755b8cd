package acl

import "strings"

// The canonical rule string of a user (ACL LIST, ACL SAVE, CONFIG
// REWRITE) and of its parts (ACL GETUSER).

func (p keyPattern) String() string {
	switch p.flags {
	case keyAll:
		return "~" + p.pattern
	case keyRead:
		return "%R~" + p.pattern
	case keyWrite:
		return "%W~" + p.pattern
	}
	return "%~" + p.pattern // unreachable: "%~x" is a syntax error
}

func (r *Rules) countCategory(b *bitmap, cat int) (on, off int) {
	for _, cmd := range r.cmds.all {
		if cmd.cats&(1<<cat) != 0 {
			if b.get(cmd.id) {
				on++
			} else {
				off++
			}
		}
	}
	return
}

// DescribeCommands is ACLDescribeSelectorCommandRules: +@all or -@all,
// then the categories that fit best, then single commands. (Redis emits
// the single commands in its command dict's order, which is random per
// process; ours is by name.)
func (r *Rules) DescribeCommands(sel *Selector) string {
	var b strings.Builder
	fake := &Selector{}
	additive := !sel.allowed.get(futureBit)
	if additive {
		b.WriteString("-@all ")
		r.setSelector(fake, "-@all")
	} else {
		b.WriteString("+@all ")
		r.setSelector(fake, "+@all")
	}
	temp := &Selector{allowed: sel.allowed}
	applied := make([]bool, len(Categories))
	for {
		best, mindiff, maxsame := -1, int(^uint(0)>>1), 0
		for j := range Categories {
			if applied[j] {
				continue
			}
			on, off := r.countCategory(&temp.allowed, j)
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < mindiff || diff == mindiff && same > maxsame) {
				best, mindiff, maxsame = j, diff, same
			}
		}
		if best == -1 {
			break
		}
		r.setCategory(fake, best, additive)
		r.setCategory(temp, best, !additive)
		if additive {
			b.WriteString("+@")
		} else {
			b.WriteString("-@")
		}
		b.WriteString(Categories[best])
		b.WriteByte(' ')
		applied[best] = true
	}
	for _, cmd := range r.cmds.all {
		if cmd.parent == nil {
			describeSingle(sel, fake, &b, cmd)
		}
	}
	out := b.String()
	return out[:len(out)-1]
}

func describeSingle(sel, fake *Selector, b *strings.Builder, cmd *Command) {
	userbit, fakebit := sel.allowed.get(cmd.id), fake.allowed.get(cmd.id)
	if userbit != fakebit {
		if userbit {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
		b.WriteString(cmd.Meta.Name)
		b.WriteByte(' ')
		fake.changePerm(cmd, userbit)
	}
	for _, sub := range cmd.subs {
		describeSingle(sel, fake, b, sub)
	}
	if !userbit {
		for _, a := range sel.firstArg[cmd.id] {
			b.WriteString("+" + cmd.Meta.Name + "|" + a + " ")
		}
	}
}

// Keys is a selector's key patterns as ACL GETUSER shows them.
func (sel *Selector) Keys() string {
	if sel.flags&selAllKeys != 0 {
		return "~*"
	}
	parts := make([]string, len(sel.keys))
	for i, p := range sel.keys {
		parts[i] = p.String()
	}
	return strings.Join(parts, " ")
}

// Channels is a selector's channel patterns as ACL GETUSER shows them.
func (sel *Selector) Channels() string {
	if sel.flags&selAllChannels != 0 {
		return "&*"
	}
	parts := make([]string, len(sel.channels))
	for i, ch := range sel.channels {
		parts[i] = "&" + ch
	}
	return strings.Join(parts, " ")
}

// describeSelector is ACLDescribeSelector.
func (r *Rules) describeSelector(sel *Selector) string {
	var b strings.Builder
	if sel.flags&selAllKeys != 0 {
		b.WriteString("~* ")
	} else {
		for _, p := range sel.keys {
			b.WriteString(p.String() + " ")
		}
	}
	if sel.flags&selAllChannels != 0 {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range sel.channels {
			b.WriteString("&" + c + " ")
		}
	}
	b.WriteString(r.DescribeCommands(sel))
	return b.String()
}

// Describe is ACLDescribeUser: u's rules (ACL LIST's).
func (r *Rules) Describe(u *User) string {
	var b strings.Builder
	for _, f := range userFlags {
		if u.flags&f.flag != 0 {
			b.WriteString(f.name + " ")
		}
	}
	for _, p := range u.passwords {
		b.WriteString("#" + p + " ")
	}
	for i, sel := range u.selectors {
		if i == 0 {
			b.WriteString(r.describeSelector(sel))
		} else {
			b.WriteString(" (" + r.describeSelector(sel) + ")")
		}
	}
	return b.String()
}
