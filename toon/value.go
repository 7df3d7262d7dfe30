package toon

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Kind is the JSON type of a [Value].
type Kind uint8

// The kinds of JSON value. The zero Kind is KindNull.
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

// String returns the lowercase JSON name of the kind.
func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	case KindObject:
		return "object"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one JSON value: null, boolean, number, string, array or object.
//
// Objects keep their members in insertion order and hold each key once.
// Numbers keep their decimal text exactly (see the package documentation).
// The zero Value is null. A Value is immutable once built, so it may be shared
// and read from several goroutines; copying a Value is cheap (it is small and
// shares its elements).
type Value struct {
	kind Kind
	b    bool
	s    string     // string contents or number text
	c    *container // array elements or object members
}

// container holds the elements of an array (keys == nil) or the members of an
// object (len(keys) == len(vals)).
type container struct {
	keys []string
	vals []Value
	// index maps keys to positions for large objects. It is only built while
	// the package itself constructs an object, never by a read, so a finished
	// Value is safe for concurrent use.
	index map[string]int
	// depth bounds the nesting below and including this container (1 for
	// one holding only primitives). Only the TOON decoder maintains it, to
	// limit how deep path expansion can nest a document.
	depth int32
}

// depthOf returns a decoder-built value's depth: 0 for primitives.
func depthOf(v Value) int32 {
	if v.c == nil {
		return 0
	}
	return v.c.depth
}

// setDepth sets c.depth from its elements.
func (c *container) setDepth() {
	var d int32
	for _, v := range c.vals {
		d = max(d, depthOf(v))
	}
	c.depth = d + 1
}

// Member is one key and value of an object.
type Member struct {
	Key   string
	Value Value
}

// Null returns the JSON null value (the same as the zero Value).
func Null() Value { return Value{} }

// Bool returns a JSON boolean.
func Bool(b bool) Value { return Value{kind: KindBool, b: b} }

// String returns a JSON string.
func String(s string) Value { return Value{kind: KindString, s: s} }

// Int returns a JSON number holding i exactly.
func Int(i int64) Value { return Value{kind: KindNumber, s: strconv.FormatInt(i, 10)} }

// Float returns a JSON number holding the shortest decimal that round-trips
// to f. NaN and the infinities have no JSON form and become null, as the spec
// requires of encoders.
func Float(f float64) Value {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}
	}
	if f == 0 {
		return Value{kind: KindNumber, s: "0"}
	}
	return Value{kind: KindNumber, s: strconv.FormatFloat(f, 'g', -1, 64)}
}

// ErrInvalidNumber is returned by [Number] for text that is not a JSON number.
var ErrInvalidNumber = errors.New("toon: invalid number")

// Number returns a JSON number with exactly the given decimal text, which must
// follow the JSON number grammar (RFC 8259 §6), e.g. "42", "-0.5" or "1E+30".
func Number(text string) (Value, error) {
	if !isJSONNumber(text) {
		return Value{}, fmt.Errorf("%w: %q", ErrInvalidNumber, text)
	}
	return Value{kind: KindNumber, s: text}, nil
}

// Array returns a JSON array of the given elements. The slice is copied.
func Array(elems ...Value) Value {
	return Value{kind: KindArray, c: &container{vals: append([]Value(nil), elems...)}}
}

// Object returns a JSON object with the given members in order. When a key
// appears more than once the last value wins and keeps the position of the
// key's first appearance, as JSON.parse does.
func Object(members ...Member) Value {
	var ob objectBuilder
	for _, m := range members {
		ob.set(m.Key, m.Value)
	}
	return ob.value()
}

// Kind reports the JSON type of v.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is null.
func (v Value) IsNull() bool { return v.kind == KindNull }

// Boolean returns the value of a boolean, and false for any other kind.
func (v Value) Boolean() bool { return v.kind == KindBool && v.b }

// Text returns the contents of a string or the decimal text of a number, and
// "" for any other kind.
func (v Value) Text() string {
	if v.kind == KindString || v.kind == KindNumber {
		return v.s
	}
	return ""
}

// Len returns the number of elements of an array or members of an object, and
// 0 for any other kind.
func (v Value) Len() int {
	if v.c == nil {
		return 0
	}
	return len(v.c.vals)
}

// Index returns the i-th element of an array or the value of the i-th member
// of an object. It panics if i is out of range, like a slice index.
func (v Value) Index(i int) Value { return v.c.vals[i] }

// Key returns the key of the i-th member of an object, and "" for an array.
// It panics if i is out of range, like a slice index.
func (v Value) Key(i int) string {
	if v.c.keys == nil {
		_ = v.c.vals[i] // same bounds behaviour as for objects
		return ""
	}
	return v.c.keys[i]
}

// Lookup returns the value of the object member with the given key.
func (v Value) Lookup(key string) (Value, bool) {
	if v.kind != KindObject {
		return Value{}, false
	}
	if i, ok := v.c.find(key); ok {
		return v.c.vals[i], true
	}
	return Value{}, false
}

// Equal reports whether a and b are the same JSON value under the spec's
// equality: objects compare by the same ordered key sequence, arrays
// element-wise in order, and numbers by mathematical value (so 1.0 equals 1
// and -0 equals 0).
func Equal(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case KindNull:
		return true
	case KindBool:
		return a.b == b.b
	case KindString:
		return a.s == b.s
	case KindNumber:
		return a.s == b.s || canonicalNumber(a.s) == canonicalNumber(b.s)
	}
	if a.Len() != b.Len() {
		return false
	}
	for i := 0; i < a.Len(); i++ {
		if a.kind == KindObject && a.c.keys[i] != b.c.keys[i] {
			return false
		}
		if !Equal(a.c.vals[i], b.c.vals[i]) {
			return false
		}
	}
	return true
}

// indexThreshold is the object size from which key lookups during
// construction use a map instead of a linear scan.
const indexThreshold = 16

func (c *container) find(key string) (int, bool) {
	if c.index != nil {
		i, ok := c.index[key]
		return i, ok
	}
	for i, k := range c.keys {
		if k == key {
			return i, true
		}
	}
	return 0, false
}

// findForUpdate is find for code that is building c: it builds the index
// once the object is large enough to need it.
func (c *container) findForUpdate(key string) (int, bool) {
	if c.index == nil && len(c.keys) >= indexThreshold {
		c.index = make(map[string]int, len(c.keys)*2)
		for i, k := range c.keys {
			if _, dup := c.index[k]; !dup {
				c.index[k] = i
			}
		}
	}
	return c.find(key)
}

func (c *container) appendMember(key string, v Value) {
	if c.index != nil {
		c.index[key] = len(c.keys)
	}
	c.keys = append(c.keys, key)
	c.vals = append(c.vals, v)
}

// objectBuilder collects object members, keeping each key once: a repeated
// key replaces the earlier value in its original position.
type objectBuilder struct {
	c container
}

func (ob *objectBuilder) set(key string, v Value) {
	if i, ok := ob.c.findForUpdate(key); ok {
		ob.c.vals[i] = v
		return
	}
	ob.c.appendMember(key, v)
}

func (ob *objectBuilder) value() Value {
	c := ob.c
	if c.keys == nil {
		c.keys = []string{}
	}
	c.index = nil
	return Value{kind: KindObject, c: &c}
}
