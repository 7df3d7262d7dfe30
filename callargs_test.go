package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"dispatch/dispatch"
)

// typedSchema is the fixture's add schema (a $ref into $defs) with more
// property kinds beside it.
const typedSchema = `{
  "type": "object",
  "properties": {
    "a": {"$ref": "#/$defs/operand"},
    "n": {"type": "integer"},
    "s": {"type": "string"},
    "flag": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "opts": {"type": "object"},
    "maybe": {"type": ["string", "null"]},
    "count": {"type": ["integer", "null"]},
    "either": {"anyOf": [{"type": "number"}, {"type": "boolean"}]},
    "mode": {"enum": ["fast", "slow"]},
    "level": {"enum": [1, 2, 3]},
    "loop": {"$ref": "#/properties/loop"},
    "any": {}
  },
  "$defs": {"operand": {"type": "number"}}
}`

func TestMergeCallArgs_TypesFromSchema(t *testing.T) {
	tests := []struct {
		name   string
		object string
		words  []string
		want   string // the arguments; empty when an error is wanted
		errHas string
	}{
		{name: "number through $ref", words: []string{"a=2"}, want: `{"a":2}`},
		{name: "negative float", words: []string{"a=-1.5e3"}, want: `{"a":-1.5e3}`},
		{name: "integer", words: []string{"n=42"}, want: `{"n":42}`},
		{name: "string stays text", words: []string{"s=42"}, want: `{"s":"42"}`},
		{name: "string keeps =", words: []string{"s=a=b"}, want: `{"s":"a=b"}`},
		{name: "empty string", words: []string{"s="}, want: `{"s":""}`},
		{name: "boolean", words: []string{"flag=true"}, want: `{"flag":true}`},
		{name: "array", words: []string{`tags=["a","b"]`}, want: `{"tags":["a","b"]}`},
		{name: "object", words: []string{`opts={"x":1}`}, want: `{"opts":{"x":1}}`},
		{name: "string or null is text", words: []string{"maybe=null"}, want: `{"maybe":"null"}`},
		{name: "integer or null takes null", words: []string{"count=null"}, want: `{"count":null}`},
		{name: "anyOf", words: []string{"either=false"}, want: `{"either":false}`},
		{name: "enum of strings", words: []string{"mode=fast"}, want: `{"mode":"fast"}`},
		{name: "enum of numbers", words: []string{"level=2"}, want: `{"level":2}`},
		{name: "a $ref loop is untyped", words: []string{"loop=1"}, want: `{"loop":"1"}`},
		{name: "untyped property is text", words: []string{"any=1"}, want: `{"any":"1"}`},
		{name: "unknown property is text", words: []string{"other=1"}, want: `{"other":"1"}`},
		{name: "html stays as typed", words: []string{"s=<b>&"}, want: `{"s":"<b>&"}`},
		{name: ":= is JSON whatever the schema", words: []string{`s:=7`, `a:=2.5`}, want: `{"a":2.5,"s":7}`},
		{name: "pairs override the object", object: `{"a":1,"s":"x"}`, words: []string{"a=3"}, want: `{"a":3,"s":"x"}`},
		{name: "number that is not", words: []string{"a=two"}, errHas: `"a" is a number in the input schema of t`},
		{name: "integer that is a fraction", words: []string{"n=1.5"}, errHas: `"n" is an integer`},
		{name: "boolean that is not", words: []string{"flag=yes"}, errHas: "flag:=JSON"},
		{name: "array that is not JSON", words: []string{"tags=a,b"}, errHas: `"tags" is an array`},
		{name: "bad JSON after :=", words: []string{"a:=x"}, errHas: "the value after := must be JSON"},
		{name: "object that is not an object", object: `{"a":`, errHas: "must be one JSON object"},
		{name: "null object", object: `null`, errHas: "must be one JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, pairs, err := splitCallArgs(tt.words, strings.NewReader(""), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			got, err := mergeCallArgs("t", tt.object, json.RawMessage(typedSchema), pairs)
			if tt.errHas != "" {
				var usage *usageErr
				if err == nil || !errors.As(err, &usage) || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("got %s, %v; want a usage error with %q", got, err, tt.errHas)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestSplitCallArgs(t *testing.T) {
	tests := []struct {
		name       string
		words      []string
		stdin      string
		wantObject string
		wantPairs  int
		errHas     string
	}{
		{name: "object", words: []string{`{"a":1}`}, wantObject: `{"a":1}`},
		{name: "object from stdin", words: []string{"-"}, stdin: `{"a":1}`, wantObject: `{"a":1}`},
		{name: "object and pairs", words: []string{"b=2", ` {"a":1}`, "c:=3"}, wantObject: `{"a":1}`, wantPairs: 2},
		{name: "blank words are nothing", words: []string{"", "  "}},
		{name: "two objects", words: []string{`{}`, `{}`}, errHas: "not two"},
		{name: "a word without =", words: []string{"message"}, errHas: `"message" is neither a JSON object nor NAME=VALUE`},
		{name: "an array", words: []string{"[1]"}, errHas: "neither a JSON object"},
		{name: "no name", words: []string{"=1"}, errHas: "neither"},
		{name: "no name before :=", words: []string{":=1"}, errHas: "neither"},
		{name: "a name twice", words: []string{"a=1", "a:=2"}, errHas: `"a" is given twice`},
		{name: "stdin at the limit", words: []string{"-"}, stdin: `{"a":"` + strings.Repeat("x", 64-8) + `"}`, wantObject: `{"a":"` + strings.Repeat("x", 64-8) + `"}`},
		{name: "stdin over the limit", words: []string{"-"}, stdin: `{"a":"` + strings.Repeat("x", 64) + `"}`, errHas: "the arguments on stdin are larger than 64 B (--max-args-file)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			object, pairs, err := splitCallArgs(tt.words, strings.NewReader(tt.stdin), 64)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want %q", err, tt.errHas)
				}
				return
			}
			if err != nil || object != tt.wantObject || len(pairs) != tt.wantPairs {
				t.Errorf("got %q %v %v", object, pairs, err)
			}
		})
	}
}

func TestShellError_Rewords(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"parameters become flags", usageError(`"argumentsPath" and "argumentsKey" need an "argumentsFile"`, `Example: {"action":"call","tool":"t","argumentsFile":"/tmp/r1.json","argumentsPath":"items"}`),
			`--arguments-path and --arguments-key need an -f/--arguments-file. See 'dispatch call --help' for examples`},
		{"nested example ends at its brace", usageError(`bad`, `Example: {"action":"call","tool":"read_file","arguments":{"path":"/tmp/a.txt"}} and more`),
			`bad. See 'dispatch call --help' for examples and more`},
		{"two examples become one pointer", usageError(`"limit" must be at least 1, got 0`, `Use 1 to 500. Example: {"action":"list"} or {"action":"list","connection":"c1","includeTools":true}`),
			`--limit must be at least 1, got 0. Use 1 to 500. See 'dispatch list --help' for examples`},
		{"both forms keep the shell's", usageError(`refresh them with {"action":"list","refresh":true}, or dispatch list --refresh`, ""),
			`refresh them with dispatch list --refresh`},
		{"readresult notes", usageError(`slice: fromLine=9 is past the end of the file`, ""), `slice: --from-line 9 is past the end of the file`},
		{"other errors are left alone", errors.New(`"arguments" of {"action":"x"}`), `"arguments" of {"action":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := shellError(tt.err)
			if got.Error() != tt.want {
				t.Errorf("shellError = %q, want %q", got.Error(), tt.want)
			}
			if !errors.Is(got, tt.err) {
				t.Errorf("shellError does not unwrap to the original error")
			}
		})
	}
}

func usageError(msg, hint string) error { return &dispatch.UsageError{Msg: msg, Hint: hint} }
