package dispatch

import "encoding/json"

// ToolName is the one tool dispatch exposes upstream.
const ToolName = "proxy-dispatch"

// ToolDescription is what the agent reads to learn the workflow. It is kept
// short on purpose: every agent pays for it on every turn.
const ToolDescription = `Gateway to the tools of several MCP servers. Find a tool, then call it:
1. search {query:"what you want to do"} (or list) -> tools with their parameters.
2. info {tool} -> full input schema, when the parameters are unclear.
3. call {tool, arguments:{...}} (add connection when a name exists on several servers).
Large results are saved to a file and you get its path (resultFile) with a preview: read it with readresult {resultFile, op: stat|head|tail|slice|grep|read|query} - never with another server's file tool. Pass a resultFile (or a JSON file) as argumentsFile to feed the next call.
run {steps:[...]}: several requests in one.`

// inputSchema is the tool's JSON schema. A golden test pins it, so every
// change to what agents see is deliberate.
const inputSchema = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["list", "search", "info", "call", "readresult", "run"]},
    "connection": {"type": "string", "description": "Server alias (c1..) or name."},
    "query": {"type": "string", "description": "search: the task in words."},
    "tool": {"type": "string", "description": "info/call: tool name."},
    "arguments": {"type": "object", "description": "call: the tool's inputs."},
    "argumentsFile": {"type": "string", "description": "call: JSON/TOON file of inputs, e.g. a resultFile; arguments override its keys."},
    "argumentsPath": {"type": "string", "description": "call: gjson path into argumentsFile."},
    "argumentsKey": {"type": "string", "description": "call: pass that value under this key."},
    "meta": {"type": "object", "description": "call: sent as _meta."},
    "resultToFile": {"type": "boolean", "description": "call: save the result to a file."},
    "resultSizeThreshold": {"type": "integer", "description": "call: bytes above which the result is saved to a file (0 = never)."},
    "timeout": {"type": "number", "description": "call/run: seconds."},
    "steps": {"type": "array", "items": {"type": "object"}, "description": "run: requests with optional id; \"$ID.value.PATH\", \"$ID.resultFile\" use earlier answers."},
    "refresh": {"type": "boolean", "description": "list/search: re-read live tool lists."},
    "includeTools": {"type": "boolean"},
    "includeInputSchema": {"type": "boolean"},
    "includeAnnotations": {"type": "boolean"},
    "format": {"type": "string", "enum": ["compact", "detail"]},
    "limit": {"type": "integer"},
    "offset": {"type": "integer", "description": "list: entries to skip; read: byte offset."},
    "resultFile": {"type": "string", "description": "readresult: path a call returned."},
    "op": {"type": "string", "enum": ["stat", "head", "tail", "slice", "grep", "read", "query"]},
    "lines": {"type": "integer", "description": "head/tail: count (default 50)."},
    "fromLine": {"type": "integer", "description": "slice/grep: first line (1-based)."},
    "toLine": {"type": "integer"},
    "pattern": {"type": "string", "description": "grep: case-insensitive regexp."},
    "context": {"type": "integer", "description": "grep: lines around matches."},
    "maxMatches": {"type": "integer"},
    "maxBytes": {"type": "integer", "description": "read: byte count."},
    "path": {"type": "string", "description": "query: gjson path, e.g. items.#(size>9)#.name"}
  },
  "required": ["action"]
}`

// InputSchema returns the tool's input schema as raw JSON.
func InputSchema() json.RawMessage { return json.RawMessage(inputSchema) }
