package toon

import "strconv"

// flatEncoder writes a flatTree as TOON with the same layout decisions as
// encoder (encode.go), which it mirrors function by function; key folding is
// left to encoder (EncodeJSON never sends it here). The fuzz test
// FuzzEncodeJSON_FlatMatchesTree holds the two to the same bytes.
type flatEncoder struct {
	encoder
	t      *flatTree
	fields []uint16 // key numbers of the tabular header being written
	cols   []int    // node indexes of the current row's members
	// By key number: the node index of the member with that key, in the row
	// whose index is in memberRow (so the tables need no clearing per row).
	memberAt, memberRow []int
}

func (e *flatEncoder) text(n *flatNode) string {
	if n.side {
		return e.t.side[n.a : n.a+n.b]
	}
	return e.t.src[n.a : n.a+n.b]
}

func (e *flatEncoder) keyOf(i int) string { return e.t.keys[e.t.nodes[i].key-1] }

// primitive mirrors encoder.primitive. Flat strings are valid UTF-8 by
// construction (the parser replaced invalid bytes), so no check is needed.
func (e *flatEncoder) primitive(i int) {
	n := &e.t.nodes[i]
	switch n.kind {
	case KindBool:
		if n.a == 1 {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case KindNumber:
		e.buf = appendCanonicalNumber(e.buf, e.text(n))
	case KindString:
		s := e.text(n)
		if isSafeUnquoted(s, e.cfg.delim) {
			e.buf = append(e.buf, s...)
		} else {
			e.buf = appendQuoted(e.buf, s)
		}
	default:
		e.buf = append(e.buf, "null"...)
	}
}

// allPrimitives reports whether the container at i holds no containers.
func (e *flatEncoder) allPrimitives(i int) bool {
	return !e.t.nodes[i].nested
}

// header mirrors encoder.header with the fields in e.fields when tabular.
func (e *flatEncoder) header(key string, keyed bool, n uint32, tabular bool) {
	if keyed {
		e.key(key)
	}
	e.buf = append(e.buf, '[')
	e.buf = strconv.AppendUint(e.buf, uint64(n), 10)
	if e.cfg.delim != ',' {
		e.buf = append(e.buf, e.cfg.delim)
	}
	e.buf = append(e.buf, ']')
	if tabular {
		e.buf = append(e.buf, '{')
		for j, f := range e.fields {
			if j > 0 {
				e.buf = append(e.buf, e.cfg.delim)
			}
			e.key(e.t.keys[f-1])
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, ':')
}

// inlineArray mirrors encoder.inlineArray for the array at i.
func (e *flatEncoder) inlineArray(key string, keyed bool, i int) {
	n := e.t.nodes[i]
	e.header(key, keyed, n.a, false)
	if n.a == 0 {
		return
	}
	e.buf = append(e.buf, ' ')
	for j := i + 1; j < int(n.b); j++ {
		if j > i+1 {
			e.buf = append(e.buf, e.cfg.delim)
		}
		if len(e.buf) >= flushSize { // a long line is written out as it grows
			e.flush()
		}
		e.primitive(j)
	}
}

func (e *flatEncoder) root() {
	switch e.t.nodes[0].kind {
	case KindArray:
		e.array("", false, 0, 0)
	case KindObject:
		e.members(1, e.t.nodes[0].a, 0)
	default:
		e.line(0)
		e.primitive(0)
	}
}

// members writes count object members starting at node first (mirrors
// encoder.object).
func (e *flatEncoder) members(first int, count uint32, depth int) {
	for i, k := first, uint32(0); k < count; i, k = e.t.nodes[i].next(i), k+1 {
		e.member(i, depth)
	}
}

func (e *flatEncoder) member(i, depth int) {
	k := e.keyOf(i)
	switch n := e.t.nodes[i]; n.kind {
	case KindArray:
		e.array(k, true, i, depth)
	case KindObject:
		e.line(depth)
		e.key(k)
		e.buf = append(e.buf, ':')
		if n.a > 0 {
			e.members(i+1, n.a, depth+1)
		}
	default:
		e.line(depth)
		e.key(k)
		e.buf = append(e.buf, ':', ' ')
		e.primitive(i)
	}
}

// array mirrors encoder.array for the array at i.
func (e *flatEncoder) array(key string, keyed bool, i, depth int) {
	n := e.t.nodes[i]
	if n.a == 0 {
		e.line(depth)
		if keyed {
			e.key(key)
			e.buf = append(e.buf, ':', ' ')
		}
		e.buf = append(e.buf, '[', ']')
		return
	}
	if e.allPrimitives(i) {
		e.line(depth)
		e.inlineArray(key, keyed, i)
		return
	}
	if e.tabularFields(i) {
		e.line(depth)
		e.header(key, keyed, n.a, true)
		e.rows(i, depth+1)
		return
	}
	e.line(depth)
	e.header(key, keyed, n.a, false)
	for j := i + 1; j < int(n.b); j = e.t.nodes[j].next(j) {
		e.listItem(j, depth+1)
	}
}

// tabularFields mirrors the package's tabularFields for the array at i:
// when every element is a non-empty object with the first one's keys and
// only primitive values, it sets e.fields to those keys and reports true.
func (e *flatEncoder) tabularFields(i int) bool {
	nodes := e.t.nodes
	arr := nodes[i]
	first := nodes[i+1]
	if first.kind != KindObject || first.a == 0 {
		return false
	}
	e.fields = e.fields[:0]
	for j := i + 2; j < int(first.b); j = nodes[j].next(j) {
		e.fields = append(e.fields, nodes[j].key)
	}
	for r := i + 1; r < int(arr.b); r = nodes[r].next(r) {
		row := nodes[r]
		// Keys are distinct within an object, so a row with as many
		// members as fields, each a primitive with a field's key, has
		// exactly the header's keys.
		if row.kind != KindObject || row.a != first.a || !e.allPrimitives(r) {
			return false
		}
		if !e.rowColumns(r) {
			return false
		}
	}
	return true
}

// rowColumns sets e.cols to the node indexes of the members of the row at r
// (an object of primitives, so member j is node r+1+j) in e.fields order,
// reporting false when a field is missing. Rows usually list the fields in
// header order, which is checked first.
func (e *flatEncoder) rowColumns(r int) bool {
	nodes := e.t.nodes
	e.cols = e.cols[:0]
	for j, f := range e.fields {
		at := r + 1 + j
		if nodes[at].key != f {
			return e.rowColumnsByKey(r)
		}
		e.cols = append(e.cols, at)
	}
	return true
}

// rowColumnsByKey is rowColumns for a row in another order: its members are
// indexed by key number first, so a wide row costs linear time, not a
// search per field.
func (e *flatEncoder) rowColumnsByKey(r int) bool {
	if e.memberAt == nil {
		e.memberAt = make([]int, len(e.t.keys)+1)
		e.memberRow = make([]int, len(e.t.keys)+1)
	}
	nodes := e.t.nodes
	for m := r + 1; m < int(nodes[r].b); m++ {
		k := nodes[m].key
		e.memberAt[k], e.memberRow[k] = m, r
	}
	e.cols = e.cols[:0]
	for _, f := range e.fields {
		if e.memberRow[f] != r {
			return false
		}
		e.cols = append(e.cols, e.memberAt[f])
	}
	return true
}

func (e *flatEncoder) rows(i, depth int) {
	nodes := e.t.nodes
	for r := i + 1; r < int(nodes[i].b); r = nodes[r].next(r) {
		e.line(depth)
		e.rowColumns(r)
		for j, at := range e.cols {
			if j > 0 {
				e.buf = append(e.buf, e.cfg.delim)
			}
			e.primitive(at)
		}
	}
}

// listItem mirrors encoder.listItem for the node at i.
func (e *flatEncoder) listItem(i, depth int) {
	switch n := e.t.nodes[i]; n.kind {
	case KindArray:
		e.item(depth)
		if e.allPrimitives(i) {
			e.inlineArray("", false, i)
			return
		}
		e.header("", false, n.a, false)
		for j := i + 1; j < int(n.b); j = e.t.nodes[j].next(j) {
			e.listItem(j, depth+1)
		}
	case KindObject:
		e.objectItem(i, depth)
	default:
		e.item(depth)
		e.primitive(i)
	}
}

// objectItem mirrors encoder.objectItem for the object at i.
func (e *flatEncoder) objectItem(i, depth int) {
	obj := e.t.nodes[i]
	if obj.a == 0 {
		e.line(depth)
		e.buf = append(e.buf, '-')
		return
	}
	f := i + 1
	k, v := e.keyOf(f), e.t.nodes[f]
	switch v.kind {
	case KindArray:
		if v.a > 0 && e.tabularFields(f) {
			e.item(depth)
			e.header(k, true, v.a, true)
			e.rows(f, depth+2)
			break
		}
		e.item(depth)
		if v.a == 0 {
			e.key(k)
			e.buf = append(e.buf, ':', ' ', '[', ']')
			break
		}
		if e.allPrimitives(f) {
			e.inlineArray(k, true, f)
			break
		}
		e.header(k, true, v.a, false)
		for j := f + 1; j < int(v.b); j = e.t.nodes[j].next(j) {
			e.listItem(j, depth+2)
		}
	case KindObject:
		e.item(depth)
		e.key(k)
		e.buf = append(e.buf, ':')
		if v.a > 0 {
			e.members(f+1, v.a, depth+2)
		}
	default:
		e.item(depth)
		e.key(k)
		e.buf = append(e.buf, ':', ' ')
		e.primitive(f)
	}
	if obj.a > 1 {
		e.members(v.next(f), obj.a-1, depth+1)
	}
}
