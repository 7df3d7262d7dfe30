package dispatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"dispatch/spill"
)

// Request is one proxy-dispatch invocation: the tool's arguments, or the
// equivalent CLI command.
type Request struct {
	Action     string `json:"action"`
	Connection string `json:"connection,omitempty"`
	// Type is what list, search, info and call work on: "tool" (empty
	// means tool, except to search, where it means every kind),
	// "resource" or "prompt".
	Type string `json:"type,omitempty"`

	// The Proxy Extension's spelling (Magg's proxy tool), accepted so a
	// client written for it works unchanged. Check moves Args into
	// Arguments and, on info and call, Path into Tool, URI or Prompt by
	// Type.
	Args         json.RawMessage `json:"args,omitempty"`
	FilterServer *string         `json:"filter_server,omitempty"` // list: connection alias or name prefix; "" matches all
	// ProxyShape says the agent wrote the request in the Proxy
	// Extension's spelling, so list and info answer in that spec's shape
	// (see proxySpelled). Set by ParseRequest; not part of the tool's JSON.
	ProxyShape bool `json:"-"`

	// list and search
	Query              string `json:"query,omitempty"`
	Refresh            bool   `json:"refresh,omitempty"`
	IncludeTools       *bool  `json:"includeTools,omitempty"`
	IncludeInputSchema bool   `json:"includeInputSchema,omitempty"`
	IncludeAnnotations bool   `json:"includeAnnotations,omitempty"`
	Format             string `json:"format,omitempty"`
	Limit              *int   `json:"limit,omitempty"` // nil: the default; given, at least 1
	Offset             int64  `json:"offset,omitempty"`

	// info and call
	Tool          string          `json:"tool,omitempty"`
	URI           string          `json:"uri,omitempty"`    // a resource URI or URI template
	Prompt        string          `json:"prompt,omitempty"` // a prompt name
	Arguments     json.RawMessage `json:"arguments,omitempty"`
	ArgumentsFile string          `json:"argumentsFile,omitempty"`
	ArgumentsPath string          `json:"argumentsPath,omitempty"`
	ArgumentsKey  string          `json:"argumentsKey,omitempty"`
	// Meta is forwarded as the downstream request's _meta, as the bytes
	// it came in: decoded into map[string]any, its numbers became
	// float64s (123456789012345678901234567890 reached the server as
	// 1.2345678901234568e+29, and 1e400 failed the request). A JSON object;
	// Check makes JSON null nothing.
	Meta         json.RawMessage `json:"meta,omitempty"`
	ResultToFile bool            `json:"resultToFile,omitempty"`
	// SaveTo, for the CLI's -o with a resource, writes its one content
	// there (a blob decoded). Not part of the tool's JSON.
	SaveTo string `json:"-"`
	// WorkDir is the directory a relative argumentsFile is in, when it is
	// not this process's: a shell session serves commands run elsewhere.
	// Only with Options.TrustPaths (the CLI's). Not part of the tool's JSON.
	WorkDir string `json:"-"`
	// AsSent keeps an inline result as the server sent it, not made TOON
	// by --toon: the CLI's -o saves it with SavePayload, whose file name
	// picks the format, and TOON text there would be saved as text. Not
	// part of the tool's JSON.
	AsSent              bool     `json:"-"`
	ResultSizeThreshold *int64   `json:"resultSizeThreshold,omitempty"`
	Timeout             *float64 `json:"timeout,omitempty"` // nil: the server's or --timeout; given, more than 0
	// TimeoutName is how the caller spells Timeout, for messages: the
	// CLI sets "--call-timeout"; empty means the parameter "timeout".
	TimeoutName string `json:"-"`

	// readresult
	ResultFile string `json:"resultFile,omitempty"`
	Op         string `json:"op,omitempty"`
	Lines      *int   `json:"lines,omitempty"` // nil: DefaultReadLines; given, at least 1
	FromLine   int64  `json:"fromLine,omitempty"`
	ToLine     int64  `json:"toLine,omitempty"`
	Pattern    string `json:"pattern,omitempty"`
	Context    int    `json:"context,omitempty"`
	MaxMatches *int   `json:"maxMatches,omitempty"` // nil: the default; given, at least 1
	MaxBytes   *int64 `json:"maxBytes,omitempty"`   // nil: spill.DefaultReadBytes; given, at least 1
	// Path is readresult's gjson path; on info and call it is the Proxy
	// Extension's name or URI, which Check moves to Tool, URI or Prompt.
	Path string `json:"path,omitempty"`

	// run
	Steps json.RawMessage `json:"steps,omitempty"`

	// argumentsChecked says Arguments is a JSON object already known to
	// be valid, as part of the agent's whole message (PlainCall), so
	// that Check need not run encoding/json's validator over it again
	// on the hot path (twice: PlainCall's Check and startCall's).
	argumentsChecked bool
}

// Actions and the parameters each accepts. A parameter given to an action
// that ignores it is an error, not silently dropped: the agent meant
// something by it.
var actionParams = map[string][]string{
	"list":       {"type", "connection", "filter_server", "refresh", "includeTools", "includeInputSchema", "includeAnnotations", "format", "limit", "offset", "resultToFile", "resultSizeThreshold"},
	"search":     {"query", "type", "connection", "refresh", "includeInputSchema", "format", "limit", "resultToFile", "resultSizeThreshold"},
	"info":       {"type", "tool", "uri", "prompt", "path", "connection", "resultToFile", "resultSizeThreshold"},
	"call":       {"type", "tool", "uri", "prompt", "path", "connection", "arguments", "args", "argumentsFile", "argumentsPath", "argumentsKey", "meta", "resultToFile", "resultSizeThreshold", "timeout"},
	"readresult": {"resultFile", "op", "lines", "fromLine", "toLine", "pattern", "context", "maxMatches", "maxBytes", "offset", "path"},
	"run":        {"steps", "timeout"},
}

// allParams is every parameter the schema declares.
var allParams = func() map[string]bool {
	all := map[string]bool{"action": true}
	for _, params := range actionParams {
		for _, p := range params {
			all[p] = true
		}
	}
	return all
}()

// UsageError is a request the agent can fix; its message says how.
type UsageError struct {
	Msg  string
	Hint string // the correct form, e.g. an example request
	// ShellHint is Hint for a person at a shell (flags and commands),
	// where rewording the agent's JSON would not make a sentence.
	ShellHint string
}

func (e *UsageError) Error() string {
	if e.Hint == "" {
		return e.Msg
	}
	return e.Msg + ". " + e.Hint
}

func usagef(hint, format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// usageBoth is usagef with the hint in both forms: hint for the agent,
// shell for the command line.
func usageBoth(hint, shell, format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...), Hint: hint, ShellHint: shell}
}

var examples = map[string]string{
	"list":       `Example: {"action":"list"} or {"action":"list","connection":"c1","includeTools":true}`,
	"search":     `Example: {"action":"search","query":"read a file"}`,
	"info":       `Example: {"action":"info","tool":"read_file"}`,
	"call":       `Example: {"action":"call","tool":"read_file","arguments":{"path":"/tmp/a.txt"}}`,
	"readresult": `Example: {"action":"readresult","resultFile":"/tmp/.../r1.json","op":"grep","pattern":"error"}`,
	"run":        `Example: {"action":"run","steps":[{"id":"a","action":"call","tool":"read_file","arguments":{"path":"/tmp/a.json"}},{"action":"call","tool":"create_entities","argumentsFile":"$a.resultFile"}]}`,
}

// ParseRequest decodes and validates the tool's raw arguments.
func ParseRequest(raw json.RawMessage) (Request, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return Request{}, usagef(examples["list"], "proxy-dispatch arguments must be a JSON object with an \"action\"")
	}
	var action string
	if a, ok := fields["action"]; ok {
		if err := json.Unmarshal(a, &action); err != nil {
			return Request{}, usagef(actionList(), "\"action\" must be a string")
		}
	}
	if action == "" {
		return Request{}, usagef(actionList(), "missing \"action\"")
	}
	allowed, ok := actionParams[action]
	if !ok {
		return Request{}, usagef(actionList(), "unknown action %q", action)
	}
	if err := checkParams(action, allowed, fields); err != nil {
		return Request{}, err
	}
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		return Request{}, usagef(paramExample(err, examples[action]), "invalid parameter: %s", describeDecodeErr(err))
	}
	if given, ok := fields["argumentsFile"]; ok && req.ArgumentsFile == "" && string(given) != "null" {
		// An empty path used to be taken for no file, and the call went
		// downstream without the inputs the agent meant to give.
		return Request{}, usagef(examples["call"], "argumentsFile is empty: give a path or leave it out")
	}
	req.ProxyShape = proxySpelled(action, fields)
	return req, req.Check()
}

func actionList() string {
	return `Use "action" with one of: list, search, info, call, readresult, run. ` + examples["search"]
}

func checkParams(action string, allowed []string, fields map[string]json.RawMessage) error {
	if action == "call" {
		if key, fixed, ok := renameToolAlias(fields); ok {
			return toolAliasError(key, fixed, checkParams(action, allowed, fixed))
		}
	}
	ok := map[string]bool{"action": true}
	for _, p := range allowed {
		ok[p] = true
	}
	if action == "call" && pathIsToolInput(fields) {
		// {"action":"call","tool":"read_file","path":"/tmp/a"}: with
		// "tool" given, a different "path" is the tool's input put at the
		// top level, not the Proxy Extension's name for the tool.
		delete(ok, "path")
	}
	var foreign, unknown []string
	for name := range fields {
		switch {
		case ok[name]:
		case allParams[name]:
			foreign = append(foreign, name)
		default:
			unknown = append(unknown, name)
		}
	}
	sort.Strings(foreign)
	sort.Strings(unknown)
	if action == "call" && len(unknown) == 1 && len(foreign) == 0 && argumentsAliases[unknown[0]] && fields["arguments"] == nil {
		// "args": {...} and the like: the agent meant "arguments".
		example, err := json.Marshal(map[string]any{"action": "call", "tool": toolOrPlaceholder(fields), "arguments": fields[unknown[0]]})
		if err != nil {
			example = []byte(`{"action":"call","tool":"TOOL","arguments":{...}}`)
		}
		return usagef("Rename it: "+string(example),
			"unknown parameter %q for action call; the tool's inputs go in \"arguments\"", unknown[0])
	}
	if action == "call" && len(unknown)+len(foreign) > 0 {
		// The agent most likely put the tool's inputs at the top level,
		// some of them perhaps named like another action's parameters
		// ("path", "query", "limit"): move them all, next to any
		// arguments already given.
		stray := append(append([]string{}, unknown...), foreign...)
		sort.Strings(stray)
		// "arguments": null decodes to a nil map without an error; a JSON
		// string holding the object is accepted, so it is kept too.
		var moved map[string]json.RawMessage
		if obj, err := argumentsObject(fields["arguments"]); err == nil && len(obj) > 0 {
			if err := json.Unmarshal(obj, &moved); err != nil {
				moved = nil
			}
		}
		if moved == nil {
			moved = map[string]json.RawMessage{}
		}
		for _, name := range stray {
			moved[name] = fields[name]
		}
		example, err := json.Marshal(map[string]any{"action": "call", "tool": toolOrPlaceholder(fields), "arguments": moved})
		if err != nil {
			example = nil
		}
		format := "unknown parameter(s) %s for action call"
		if len(foreign) > 0 {
			format = "parameter(s) %s do not apply to action call"
		}
		if fields["path"] != nil && !ok["path"] {
			format += ` ("path" on call names the tool, as "tool" already does)`
		}
		return &StrayParamsError{
			UsageError: usagef("Put the tool's inputs inside \"arguments\": "+string(example), format, quoteAll(stray)).(*UsageError),
			Stray:      stray,
			fields:     fields,
		}
	}
	if len(unknown) > 0 {
		return usagef("Parameters for "+action+": "+strings.Join(allowed, ", ")+". "+examples[action],
			"unknown parameter(s) %s", quoteAll(unknown))
	}
	if len(foreign) > 0 {
		return usagef("Parameters for "+action+": "+strings.Join(allowed, ", ")+". "+examples[action],
			"parameter(s) %s do not apply to action %s", quoteAll(foreign), action)
	}
	return nil
}

// toolAliases are names agents use for "tool".
var toolAliases = []string{"name", "toolName", "tool_name"}

// renameToolAlias finds a call's tool name given under another key
// ({"action":"call","name":"echo"}) and returns the fields with it moved to
// "tool". Only a non-empty string, with "tool" absent, is taken for a name:
// anything else may be a tool input put at the top level.
func renameToolAlias(fields map[string]json.RawMessage) (string, map[string]json.RawMessage, bool) {
	if fields["tool"] != nil {
		return "", nil, false
	}
	for _, key := range toolAliases {
		var name string
		if err := json.Unmarshal(fields[key], &name); err != nil || strings.TrimSpace(name) == "" {
			continue
		}
		fixed := make(map[string]json.RawMessage, len(fields))
		for k, v := range fields {
			fixed[k] = v
		}
		delete(fixed, key)
		fixed["tool"] = fields[key]
		return key, fixed, true
	}
	return "", nil, false
}

// toolAliasError says that the tool's name goes in "tool", with the
// corrected request; rest is what else is wrong with it, if anything, and
// already carries a corrected example with the right tool name.
func toolAliasError(key string, fixed map[string]json.RawMessage, rest error) error {
	msg := fmt.Sprintf("unknown parameter %q for action call; the tool's name goes in \"tool\"", key)
	var usage *UsageError
	if errors.As(rest, &usage) {
		return &UsageError{Msg: msg + "; also " + usage.Msg, Hint: usage.Hint}
	}
	if rest != nil {
		return rest
	}
	example, err := marshalJSON(fixed)
	if err != nil {
		return usagef(examples["call"], "%s", msg)
	}
	return usagef("Use: "+string(example), "%s", msg)
}

// argumentsAliases are names agents use for "arguments".
// "args" is not among them: it is the Proxy Extension's name for
// "arguments" and accepted as such (see normalizeSpelling).
var argumentsAliases = map[string]bool{"argument": true, "params": true, "parameters": true, "input": true, "inputs": true, "arguments_json": true}

func toolOrPlaceholder(fields map[string]json.RawMessage) any {
	var tool string
	if err := json.Unmarshal(fields["tool"], &tool); err != nil || tool == "" {
		return "TOOL"
	}
	return tool
}

func quoteAll(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = `"` + n + `"`
	}
	return strings.Join(quoted, ", ")
}

// stepsArray unwraps steps given as a JSON string holding the array, as
// some agents serialize nested values.
func stepsArray(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '"' {
		return raw, nil
	}
	var s string
	if err := json.Unmarshal(trimmed, &s); err != nil {
		return nil, err
	}
	return json.RawMessage(s), nil
}

// argumentsObject accepts an object, or a string holding one.
func argumentsObject(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '"' {
		var s string
		if err := json.Unmarshal(trimmed, &s); err != nil {
			return nil, usagef(examples["call"], "\"arguments\" is not valid JSON")
		}
		trimmed = bytes.TrimSpace([]byte(s))
		if len(trimmed) == 0 {
			return json.RawMessage("{}"), nil
		}
		if !json.Valid(trimmed) {
			return nil, usagef(examples["call"], "\"arguments\" is a string that does not hold valid JSON")
		}
	}
	if string(trimmed) == "null" {
		return json.RawMessage("{}"), nil
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, usagef(examples["call"], "\"arguments\" must be a JSON object of the tool's inputs")
	}
	if !json.Valid(trimmed) {
		return nil, usagef(examples["call"], "\"arguments\" is not valid JSON")
	}
	return trimmed, nil
}

// paramExample shows the parameter a decode error names written right,
// rather than the action's example, which may not have it at all.
func paramExample(err error, fallback string) string {
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) || typeErr.Field == "" || strings.Contains(typeErr.Field, ".") {
		return fallback
	}
	var value string
	switch kind := jsonTypeName(typeErr.Type.Kind().String()); {
	case typeErr.Field == "timeout":
		value = "120 (seconds)"
	case kind == "integer":
		value = "20"
	case kind == "number":
		value = "1.5"
	case kind == "boolean":
		value = "true"
	case kind == "object":
		value = "{...}"
	case kind == "array":
		value = "[...]"
	default:
		value = `"..."`
	}
	return fmt.Sprintf("Write it as %q: %s", typeErr.Field, value)
}

func describeDecodeErr(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return fmt.Sprintf("%q must be of type %s, not %s", typeErr.Field, jsonTypeName(typeErr.Type.Kind().String()), typeErr.Value)
	}
	return err.Error()
}

func jsonTypeName(kind string) string {
	switch {
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"):
		return "integer"
	case strings.HasPrefix(kind, "float"):
		return "number"
	case kind == "bool":
		return "boolean"
	case kind == "map", kind == "struct":
		return "object"
	case kind == "ptr":
		return "number or boolean"
	}
	return kind
}

// checkMeta makes sure Meta is a JSON object, or nothing: "meta": null is
// no meta, as it was when Meta was decoded into a map.
func (r *Request) checkMeta() error {
	meta := bytes.TrimSpace(r.Meta)
	if len(meta) == 0 || string(meta) == "null" {
		r.Meta = nil
		return nil
	}
	if !json.Valid(meta) {
		return usagef(`Write it as "meta": {...}`, `invalid parameter: "meta" is not valid JSON`)
	}
	if meta[0] != '{' {
		return usagef(`Write it as "meta": {...}`, `invalid parameter: "meta" must be of type object, not %s`, jsonKindOf(meta))
	}
	r.Meta = meta
	return nil
}

// jsonKindOf names the kind of the valid JSON value v, as encoding/json's
// type errors do.
func jsonKindOf(v []byte) string {
	switch v[0] {
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// Defaults and bounds for request parameters.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
	DefaultListLimit   = 50
	MaxListLimit       = 500
	// MaxTimeoutSeconds is the longest time.Duration in whole seconds
	// (about 292 years): a larger "timeout" used to wrap around to a
	// negative limit that failed the call at once.
	MaxTimeoutSeconds = math.MaxInt64 / int64(time.Second)
)

// timeoutParam names Timeout as the caller wrote it, and gives an example.
func (r *Request) timeoutParam() (name, example string) {
	if r.TimeoutName != "" {
		return r.TimeoutName, "e.g. " + r.TimeoutName + " 120"
	}
	return `"timeout"`, `e.g. "timeout": 120`
}

// Check validates a request built in code (the CLI's) as ParseRequest
// validates one from an agent, and normalizes its arguments.
func (r *Request) Check() error {
	if err := r.normalizeSpelling(); err != nil {
		return err
	}
	if len(r.Arguments) > 0 && !r.argumentsChecked {
		// "arguments" may arrive as a JSON string holding the object: some
		// agents serialize nested objects.
		obj, err := argumentsObject(r.Arguments)
		if err != nil {
			return err
		}
		r.Arguments = obj
	}
	if err := r.checkMeta(); err != nil {
		return err
	}
	if err := r.checkLimit(); err != nil {
		return err
	}
	if r.Offset < 0 {
		example := examples[r.Action]
		if r.Action == "readresult" {
			example = `Example: {"action":"readresult","resultFile":"/tmp/.../r1.json","op":"read","offset":32768}`
		}
		return usagef(example, "\"offset\" must not be negative")
	}
	switch r.Format {
	case "", "compact", "detail":
	default:
		return usagef(`Use "format": "compact" (default) or "detail"`, "unknown format %q", r.Format)
	}
	switch r.Action {
	case "search":
		if strings.TrimSpace(r.Query) == "" {
			return usagef(examples["search"], "search needs a \"query\"")
		}
		if len(r.Query) > MaxQueryBytes {
			return usagef("Say the task in a few words. "+examples["search"],
				"\"query\" is %d bytes long; at most %d", len(r.Query), MaxQueryBytes)
		}
		if err := r.checkType(); err != nil {
			return err
		}
		if r.IncludeInputSchema && (r.Type == TypeResource || r.Type == TypePrompt) {
			return usagef(fmt.Sprintf(`Leave it out, or use info: {"action":"info","type":%q,...} shows one in full`, r.Type),
				"\"includeInputSchema\" applies to tools, not to type %q", r.Type)
		}
	case "list":
		if err := r.checkListType(); err != nil {
			return err
		}
	case "info":
		if err := r.checkInfoTarget(); err != nil {
			return err
		}
	case "call":
		if err := r.checkCallTarget(); err != nil {
			return err
		}
	}
	if r.ResultSizeThreshold != nil && *r.ResultSizeThreshold < 0 {
		return usagef(`Use a byte count, or 0 to never save to a file`, "\"resultSizeThreshold\" must not be negative")
	}
	switch r.Action {
	case "call":
		if err := r.checkTimeout(); err != nil {
			return err
		}
		if i := strings.IndexFunc(r.ArgumentsFile, unicode.IsControl); i >= 0 {
			// The OS answered "invalid argument" for a NUL and nothing for
			// the rest: no real path the agent means holds one.
			c, _ := utf8.DecodeRuneInString(r.ArgumentsFile[i:])
			return usagef("Give the path of a file; paths with control characters are refused",
				"argumentsFile %q holds a control character (%U at byte %d)", r.ArgumentsFile, c, i)
		}
		if (r.ArgumentsPath != "" || r.ArgumentsKey != "") && r.ArgumentsFile == "" {
			return usagef(`Example: {"action":"call","tool":"t","argumentsFile":"/tmp/r1.json","argumentsPath":"items","argumentsKey":"rows"}`,
				"\"argumentsPath\" and \"argumentsKey\" need an \"argumentsFile\"")
		}
	case "run":
		if err := r.checkTimeout(); err != nil {
			return err
		}
		if steps, err := stepsArray(r.Steps); err == nil {
			r.Steps = steps
		}
		if trimmed := bytes.TrimSpace(r.Steps); len(trimmed) == 0 || trimmed[0] != '[' {
			return usagef(examples["run"], "run needs \"steps\": a JSON array of proxy-dispatch requests")
		}
	case "readresult":
		if r.ResultFile == "" {
			return usagef(examples["readresult"], "readresult needs a \"resultFile\" (the path a call returned)")
		}
		if r.MaxMatches != nil && *r.MaxMatches < 1 {
			return usagef(fmt.Sprintf(`Leave it out to show the first %d; grep always reports the total number of matching lines`, spill.DefaultMaxMatches),
				"\"maxMatches\" must be at least 1, got %d", *r.MaxMatches)
		}
		if r.Lines != nil && *r.Lines < 1 {
			return usagef(fmt.Sprintf("Leave it out for %d lines; at most %d are returned per call", DefaultReadLines, spill.DefaultMaxLines),
				"\"lines\" must be at least 1, got %d", *r.Lines)
		}
		if r.MaxBytes != nil && *r.MaxBytes < 1 {
			return usagef(fmt.Sprintf("Leave it out for %d bytes; at most %d are returned per call", spill.DefaultReadBytes, spill.DefaultMaxReadBytes),
				"\"maxBytes\" must be at least 1, got %d", *r.MaxBytes)
		}
	}
	return nil
}

// checkLimit refuses a page size outside 1 to the action's most: zero
// used to mean the default and a larger one was cut to the most, both
// silently, unlike every other count.
func (r *Request) checkLimit() error {
	if r.Limit == nil {
		return nil
	}
	def, most := DefaultListLimit, MaxListLimit
	if r.Action == "search" {
		def, most = DefaultSearchLimit, MaxSearchLimit
	}
	hint := fmt.Sprintf("Use 1 to %d, or leave it out for %d. %s", most, def, examples[r.Action])
	switch limit := *r.Limit; {
	case limit < 1:
		return usagef(hint, "\"limit\" must be at least 1, got %d", limit)
	case limit > most:
		return usagef(hint, "\"limit\" of %s may be at most %d, got %d", r.Action, most, limit)
	}
	return nil
}

// checkTimeout bounds a call's own time limit. Zero is refused like
// --timeout 0: it used to fall back to the default silently.
func (r *Request) checkTimeout() error {
	if r.Timeout == nil {
		return nil
	}
	name, example := r.timeoutParam()
	fallback := `the server's "timeout" setting or --timeout`
	if r.Action == "run" {
		fallback = "--timeout"
	}
	hint := fmt.Sprintf("Use a number of seconds more than 0 and at most %d, %s; leave it out for %s", MaxTimeoutSeconds, example, fallback)
	switch t := *r.Timeout; {
	case math.IsNaN(t):
		return usagef(hint, "%s is not a number", name)
	case t <= 0:
		return usagef(hint, "%s must be more than 0 seconds, got %g", name, t)
	case t > float64(MaxTimeoutSeconds):
		return usagef(hint, "%s of %s seconds is too long: at most %d (about 292 years)", name, secondsText(t), MaxTimeoutSeconds)
	}
	return nil
}

// secondsText writes a time limit past the longest in the digits the limit
// is given in (9223372037, not %g's 9.223372037e+09), unless it is too
// long for them to be read.
func secondsText(t float64) string {
	if t < 1e15 {
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return strconv.FormatFloat(t, 'g', -1, 64)
}

// shellSafe is what a shell word may hold unquoted.
var shellSafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`) })

// shellQuote writes s as one shell word, for commands a hint suggests.
func shellQuote(s string) string {
	if shellSafe().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
