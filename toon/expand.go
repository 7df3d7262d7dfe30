package toon

import (
	"fmt"
	"strings"
)

// decodedObject collects the members of an object while it is decoded,
// with what path expansion needs to know about each: whether its key was
// quoted and the line it came from.
type decodedObject struct {
	strict bool
	expand bool
	rows   bool // a tabular row: repeated field names overwrite silently
	c      container
	quoted []bool // only kept when expand is set
	lines  []int  // only kept when expand is set
	mem    *arena
}

func (d *decoder) newObject() *decodedObject {
	return &decodedObject{strict: d.cfg.strict, expand: d.cfg.expand, mem: &d.mem}
}

// checkNew rejects a repeated sibling key in strict mode (spec §14.4).
func (ob *decodedObject) checkNew(key string, num int) error {
	if ob.strict && !ob.rows {
		if _, dup := ob.c.findForUpdate(key); dup {
			return errAt(num, "duplicate sibling key %q", key)
		}
	}
	return nil
}

// add sets a member. A repeated key (non-strict mode) takes the new value
// in the original position: last write wins.
func (ob *decodedObject) add(key string, quoted bool, v Value, num int) {
	if i, ok := ob.c.findForUpdate(key); ok {
		ob.c.vals[i] = v
		if ob.expand {
			ob.quoted[i] = ob.quoted[i] || quoted
			ob.lines[i] = num
		}
		return
	}
	ob.c.appendMember(key, v)
	if ob.expand {
		ob.quoted = append(ob.quoted, quoted)
		ob.lines = append(ob.lines, num)
	}
}

// finish returns the object, with its dotted keys expanded when path
// expansion is on (spec §13.4). Nested objects were finished first, so
// expansion runs bottom-up like the reference's recursive pass.
func (ob *decodedObject) finish() (Value, error) {
	if !ob.expand || !ob.hasExpandableKey() {
		c := ob.mem.container()
		c.keys = ob.mem.strings(len(ob.c.keys))
		c.vals = ob.mem.values(len(ob.c.vals))
		copy(c.keys, ob.c.keys)
		copy(c.vals, ob.c.vals)
		c.setDepth()
		return Value{kind: KindObject, c: c}, nil
	}
	out := &container{keys: make([]string, 0, len(ob.c.keys)), depth: 1}
	for i, key := range ob.c.keys {
		v := ob.c.vals[i]
		var err error
		if segs, ok := ob.expandable(i); ok {
			if len(segs) > maxExpandDepth {
				return Value{}, errAt(ob.lines[i], "path expansion: key has %d segments, more than the limit of %d", len(segs), maxExpandDepth)
			}
			err = insertPath(out, segs, v, ob.strict)
		} else {
			err = mergeMember(out, key, v, ob.strict)
		}
		if err != nil {
			return Value{}, wrapAt(ob.lines[i], err)
		}
		if out.depth > maxExpandDepth {
			return Value{}, errAt(ob.lines[i], "path expansion nests the document deeper than %d levels", maxExpandDepth)
		}
	}
	out.index = nil
	return Value{kind: KindObject, c: out}, nil
}

func (ob *decodedObject) hasExpandableKey() bool {
	for i := range ob.c.keys {
		if _, ok := ob.expandable(i); ok {
			return true
		}
	}
	return false
}

// expandable returns the path segments of member i when its key is an
// unquoted dotted key made only of IdentifierSegments.
func (ob *decodedObject) expandable(i int) ([]string, bool) {
	key := ob.c.keys[i]
	if ob.quoted[i] || strings.IndexByte(key, '.') < 0 {
		return nil, false
	}
	segs := strings.Split(key, ".")
	for _, s := range segs {
		if !isIdentifierSegment(s) {
			return nil, false
		}
	}
	return segs, true
}

// maxExpandDepth bounds how deep path expansion may nest a document.
// Indentation makes deep nesting cost quadratic input, but a dotted key
// costs two bytes per level, so without a bound a small document could
// expand into a tree too deep for the recursive code that reads it.
const maxExpandDepth = maxJSONDepth

// insertPath sets segs[0].segs[1]… = v in target, creating objects along
// the way and deep-merging into existing ones.
func insertPath(target *container, segs []string, v Value, strict bool) error {
	path := make([]*container, 0, len(segs))
	cur := target
	for _, seg := range segs[:len(segs)-1] {
		path = append(path, cur)
		i, ok := cur.findForUpdate(seg)
		switch {
		case !ok:
			n := emptyObject()
			cur.appendMember(seg, n)
			cur = n.c
		case cur.vals[i].kind == KindObject:
			cur = cur.vals[i].c
		case strict:
			return fmt.Errorf("path expansion conflict at %q: expected object but found %s", seg, cur.vals[i].kind)
		default:
			n := emptyObject()
			cur.vals[i] = n
			cur = n.c
		}
	}
	if err := mergeMember(cur, segs[len(segs)-1], v, strict); err != nil {
		return err
	}
	d := cur.depth
	for i := len(path) - 1; i >= 0; i-- {
		path[i].depth = max(path[i].depth, d+1)
		d = path[i].depth
	}
	return nil
}

// mergeMember sets key = v in target; two objects deep-merge, any other
// collision is a conflict: an error in strict mode, else last write wins.
// It works through nested merges with an explicit stack, and keeps each
// container's depth an upper bound of its nesting.
func mergeMember(target *container, key string, v Value, strict bool) error {
	type merge struct {
		target *container
		key    string
		v      Value
	}
	work := []merge{{target, key, v}}
	for len(work) > 0 {
		m := work[len(work)-1]
		work = work[:len(work)-1]
		m.target.depth = max(m.target.depth, depthOf(m.v)+1)
		i, ok := m.target.findForUpdate(m.key)
		if !ok {
			m.target.appendMember(m.key, m.v)
			continue
		}
		old := m.target.vals[i]
		if old.kind == KindObject && m.v.kind == KindObject {
			// Push in reverse so members merge in document order.
			for j := len(m.v.c.keys) - 1; j >= 0; j-- {
				work = append(work, merge{old.c, m.v.c.keys[j], m.v.c.vals[j]})
			}
			continue
		}
		if strict {
			return fmt.Errorf("path expansion conflict at key %q: cannot merge %s with %s", m.key, old.kind, m.v.kind)
		}
		m.target.vals[i] = m.v
	}
	return nil
}
