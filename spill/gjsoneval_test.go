package spill

import (
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// getPath must answer exactly what gjson does for every path it
// evaluates itself.
func TestGetPath_SameAsGJSON(t *testing.T) {
	doc := `{"name":{"first":"Tom","last":"Anderson"},"age":37,
"children":["Sara","Alex","Jack"],"fav.movie":"Deer Hunter",
"friends":[{"first":"Dale","last":"Murphy","age":44,"nets":["ig","fb","tw"]},
{"first":"Roger","last":"Craig","age":68,"nets":["fb","tw"]},
{"first":"Jane","last":"Murphy","age":47,"nets":["ig","tw"]}],
"groups":{"id":[1,2],"name":["a","b"]},"s":"{\"x\":[1,2]}","n":{"a":{"a":1}}}`
	paths := []string{
		"[name.first,age]",
		"{name.first,age,\"the-kids\":children}",
		"{name.first,nick:name.last}",
		"[age,!true,!\"x\",!1.5,!{\"k\":[1]}]",
		"{a:!null,b:!false}",
		"friends.#.[first,age]",
		"friends.#.{first,age}",
		"friends.#(last==\"Murphy\")#.{first,n:nets.0}",
		"friends.#(last==\"Murphy\").[first,age]",
		"friends.#.nets|@flatten",
		"friends.#.nets.@reverse",
		"friends.#.nets.@reverse|0",
		"friends.#.[first,last]|1",
		"friends|@reverse|#.first",
		"friends.@reverse.0.first",
		"children|@reverse",
		"children.@reverse.0",
		"@reverse",
		"@this.age",
		"@pretty",
		"friends.0|@pretty:{\"indent\":\"\\t\",\"prefix\":\"> \"}",
		"@ugly",
		"[age,children]|@ugly",
		"groups|@group",
		"n|@dig:a",
		"s|@fromstr",
		"s|@fromstr|x.1",
		"age|@tostr",
		"name|@keys",
		"name|@values",
		"[name,{\"x\":1}]|@join",
		"[name,{\"x\":1}]|@join:{\"preserve\":true}",
		"@valid",
		"[[age,[children.0,children.1]],{x:name.first}]",
		"friends.#.[nets.#,age]|@flatten",
		"friends.#|[@this]",
		"!true",
		"[nope,age]",
		"{nope,age}",
		"friends.#.[nope]",
		"friends.#.nope.@reverse",
		"children.#.@tostr",
		"[children.#,friends.#]",
		"fav\\.movie|@tostr",
		"[fav\\.movie]",
	}
	for _, p := range paths {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q) = %v", p, err)
			continue
		}
		if !hasBuilders(splitPath(p)) {
			t.Errorf("%q has no multipath, modifier or literal: it does not test the evaluator", p)
		}
		want := gjson.Get(doc, p)
		got, err := getPath([]byte(doc), p, MaxQueryBuildBytes, "query")
		if err != nil {
			t.Errorf("getPath(%q) = %v", p, err)
			continue
		}
		if got.Exists() != want.Exists() || rawOf(got) != rawOf(want) {
			t.Errorf("getPath(%q) = %q (exists %v), gjson says %q (exists %v)", p, rawOf(got), got.Exists(), rawOf(want), want.Exists())
		}
	}
}

// What a path may ask for is bounded before the work is done, and each
// refusal names its limit.
func TestLimits_QueryBounds(t *testing.T) {
	big := `{"s":"` + strings.Repeat("x", 1<<20) + `","a":[` + strings.Repeat("0,", 100000) + `0]}`
	thisN := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("@this,", n), ",") + "]" }
	doubling := func(n int) string { return "s" + strings.Repeat("|[@this,@this]", n) }
	tests := []struct {
		name, doc, path string
		want            string // in the error; "" for success
		tooLarge        bool
	}{
		{"long path", big, thisN(5000), "more than the limit of 4.0 KiB (MaxPathBytes)", false},
		{"many elements", big, thisN(65), "more than 64 multipath elements", false},
		{"nested elements count", big, "[" + strings.Repeat("[a,b],", 22) + "[a,b]]", "more than 64 multipath elements", false},
		{"elements within the limit, each a copy of the file", big, thisN(64), "on what one query may build", true},
		{"doubling chain", big, doubling(10), "on what one query may build", true},
		{"small doubling chain", `{"s":"x"}`, "s" + strings.Repeat("|[@this,@this]", 4), "", false},
		{"literal mapped over many elements", big, `a.#.!"` + strings.Repeat("y", 1000) + `"`, "", false}, // a literal after a dot is a key: matches nothing
		{"literal multipath mapped over many elements", big, `a.#.[!"` + strings.Repeat("y", 1000) + `"]`, "on what one query may build", true},
		{"pretty of a wide deep file", `[` + strings.Repeat(`[`, 5000) + strings.Repeat(`0,`, 20000) + `0` + strings.Repeat(`]`, 5000) + `]`, "@pretty", "@pretty could build up to", true},
		{"tostr of a large string", `{"s":"` + strings.Repeat("x", 11<<20) + `"}`, "s|@tostr", "@tostr could build up to 66 MiB", true},
		{"modifier inside a query", `{"a":[{"b":1}]}`, "a.#(@this.b==1)", "inside a query", false},
		{"multipath inside a query", `{"a":[{"b":1}]}`, "a.#([b,b]==1)", "inside a query", false},
		{"nested query is fine", `{"a":[{"b":[1]}]}`, "a.#(b.#(==1))#|@this", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeTemp(t, "f.json", tt.doc)
			_, err := Limits{}.Query(openFile(t, file), tt.path)
			if tt.want == "" {
				if err != nil && !strings.Contains(err.Error(), "matches nothing") {
					t.Fatalf("Query(%.60q) = %v, want success", tt.path, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Query(%.60q) = %v, want an error containing %q", tt.path, err, tt.want)
			}
			if !errors.Is(err, ErrBadRequest) {
				t.Errorf("error %v is not a bad request", err)
			}
			// Select (argumentsPath) has the same bounds, with its own limit.
			_, err = Select(openFile(t, file), tt.path, 8<<20)
			if err == nil {
				t.Fatalf("Select(%.60q) succeeded", tt.path)
			}
			if errors.Is(err, ErrTooLarge) != tt.tooLarge {
				t.Errorf("Select(%.60q) = %v: matches ErrTooLarge %v, want %v", tt.path, err, !tt.tooLarge, tt.tooLarge)
			}
		})
	}
}

// JSON a modifier produces is held to the same depth as a file: a string
// of 1.5 million brackets decoded by @fromstr must not reach tidwall/pretty
// (its stack overflow kills the process) or any other modifier or path.
func TestLimits_QueryModifierOutputDepth(t *testing.T) {
	const n = 1500000
	doc := `{"s":"` + strings.Repeat("[", n) + strings.Repeat("]", n) + `","ok":"[[1]]"}`
	file := writeTemp(t, "deep.json", doc)
	var next []string
	for _, m := range strings.Split(knownModifiers(), ", ") {
		next = append(next, "|"+m, "."+m)
	}
	next = append(next, "", "|0", ".0.0", "|#", "|[@this]", "|{a:@this}")
	for _, after := range next {
		path := "s|@fromstr" + after
		_, err := Limits{}.Query(openFile(t, file), path)
		if err == nil || !strings.Contains(err.Error(), "nesting deeper than 10000 levels") {
			t.Errorf("Query(%q) = %v, want a refusal of the deep @fromstr output", path, err)
		}
	}
	// The same modifiers on shallow output still work.
	if r, err := (Limits{}).Query(openFile(t, file), "ok|@fromstr|@pretty"); err != nil || strings.TrimSpace(r.Value) != "[[1]]" {
		t.Errorf("Query(ok|@fromstr|@pretty) = %v, %v", r, err)
	}
}
