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
Large results are saved to a file and you get its path (resultFile) with a preview: read it with readresult {resultFile, op: stat|head|tail|slice|grep|read|query} - never with another server's file tool. Pass a resultFile (or a JSON file) as argumentsFile to feed the next call.`

// inputSchema is the tool's JSON schema. A golden test pins it, so every
// change to what agents see is deliberate.
const inputSchema = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["list", "search", "info", "call", "readresult"]},
    "connection": {"type": "string", "description": "Server alias (c1..), name or ID. Filters list/search; picks the server for info/call."},
    "query": {"type": "string", "description": "search: the task in words, e.g. \"send a message to a channel\"."},
    "tool": {"type": "string", "description": "info/call: tool name as list or search shows it."},
    "arguments": {"type": "object", "description": "call: the tool's inputs (a JSON object)."},
    "argumentsFile": {"type": "string", "description": "call: JSON or TOON file with the inputs, e.g. an earlier resultFile; arguments override its keys."},
    "argumentsPath": {"type": "string", "description": "call: gjson path selecting part of argumentsFile."},
    "argumentsKey": {"type": "string", "description": "call: put the selected value under this key."},
    "meta": {"type": "object", "description": "call: forwarded as the request's _meta."},
    "resultToFile": {"type": "boolean", "description": "call: always save the result to a file."},
    "resultSizeThreshold": {"type": "integer", "description": "call: save results larger than this many bytes (0 = never)."},
    "timeout": {"type": "number", "description": "call: seconds before the call is cancelled."},
    "refresh": {"type": "boolean", "description": "list/search: re-read tool lists from the servers."},
    "includeTools": {"type": "boolean"},
    "includeInputSchema": {"type": "boolean"},
    "includeAnnotations": {"type": "boolean"},
    "format": {"type": "string", "enum": ["compact", "detail"]},
    "limit": {"type": "integer"},
    "offset": {"type": "integer", "description": "list: skip this many entries; readresult read: byte offset."},
    "resultFile": {"type": "string", "description": "readresult: the path a call returned."},
    "op": {"type": "string", "enum": ["stat", "head", "tail", "slice", "grep", "read", "query"]},
    "lines": {"type": "integer", "description": "head/tail: line count (default 50)."},
    "fromLine": {"type": "integer", "description": "slice/grep: first line (1-based)."},
    "toLine": {"type": "integer"},
    "pattern": {"type": "string", "description": "grep: case-insensitive regular expression."},
    "context": {"type": "integer", "description": "grep: lines around each match."},
    "maxMatches": {"type": "integer"},
    "maxBytes": {"type": "integer", "description": "read: bytes to return."},
    "path": {"type": "string", "description": "query: gjson path, e.g. items.#(size>1000)#.name"}
  },
  "required": ["action"]
}`

// InputSchema returns the tool's input schema as raw JSON.
func InputSchema() json.RawMessage { return json.RawMessage(inputSchema) }
