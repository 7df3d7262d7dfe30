package rawjson

import (
	"runtime"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestNestingWithin(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, c := range []struct {
		data  string
		limit int
		want  bool
	}{
		{`{}`, 1, true},
		{`{"a":[1]}`, 1, false},
		{`{"a":[1]}`, 2, true},
		{deep(10), 10, true},
		{deep(11), 10, false},
		{`{"a":"[[[[[["}`, 1, true},        // brackets inside a string do not count
		{`{"a":"\"[[[[[["}`, 1, true},      // nor after an escaped quote
		{`{"a":"\\"}`, 1, true},            // an escaped backslash ends before the quote
		{`{"a":"\\","b":[[1]]}`, 2, false}, // so the brackets after it count
		{`{"a":"x\\\"[[["}`, 1, true},      // three backslashes: the quote is escaped
		{`"[[[[`, 1, true},                 // unterminated: left to the validator
		{`[` + `"` + strings.Repeat(`\\`, 5) + `"]`, 1, true},
		{`{"a":[1,2]}`, 2, true},
		{`[[[]]]`, 3, true},
		{`[[[[]]]]`, 3, false},
		{`{"a":{"b":{"c":{}}}}`, 3, false},
		{`{"a":"[[[[{{{{"}`, 3, true},
		{`{"a":"\\"}` + `[[[[`, 3, false},
		{`[[],[],[],[]]`, 2, true}, // siblings do not add up
		// No longer than the limit: within it without a scan (a level
		// takes a byte); one byte more is scanned.
		{`[`, 1, true},
		{`[[`, 1, false},
		{`[[[`, 3, true},
		{`[[[[`, 3, false},
	} {
		if got := NestingWithin([]byte(c.data), c.limit); got != c.want {
			t.Errorf("NestingWithin(%q, %d) = %v, want %v", c.data, c.limit, got, c.want)
		}
	}
}

// The reason it exists: a line millions of levels deep is refused at
// once, where gjson's validator would recurse once per level.
func TestNestingWithin_MillionsOfLevelsDoNotRecurse(t *testing.T) {
	line := []byte(`{"result":` + strings.Repeat("[", 5_000_000) + strings.Repeat("]", 5_000_000) + `}`)
	if NestingWithin(line, 10_000) {
		t.Fatal("5,000,000 levels reported within 10,000")
	}
}

// At the limits dispatch uses, gjson's validator, run after this check,
// needs a bounded stack.
func TestNestingWithin_ValidatorStackAtTheLimit(t *testing.T) {
	const limit = 100_000
	line := []byte(strings.Repeat("[", limit) + strings.Repeat("]", limit))
	if !NestingWithin(line, limit) {
		t.Fatal("at the limit, refused")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan bool)
	go func() { done <- gjson.ValidBytes(line) }()
	if !<-done {
		t.Fatal("gjson refused valid JSON")
	}
	runtime.ReadMemStats(&after)
	// Signed: stacks freed meanwhile (by a GC another test's garbage
	// began) can leave StackSys lower than before.
	if grown := int64(after.StackSys) - int64(before.StackSys); grown > 64<<20 {
		t.Fatalf("validating %d levels grew the stacks by %d MiB", limit, grown>>20)
	}
}
