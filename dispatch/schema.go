package dispatch

import "encoding/json"

// ToolName is the one tool dispatch exposes upstream.
const ToolName = "proxy-dispatch"

// ToolDescription is what the agent reads to learn the workflow. It is kept
// short on purpose: every agent pays for it on every turn.
const ToolDescription = `Gateway to the tools, resources and prompts of several MCP servers. Find, then call:
1. search {query:"what you want to do"} (or list) - tools with their parameters.
2. info {tool} - full input schema, when unclear.
3. call {tool, arguments:{...}} (add connection if a name is on several servers).
type resource|prompt: list/info/call with uri or prompt. run {steps:[...]} runs several requests.
Large results are saved to a file (resultFile) with a preview: read it with readresult {resultFile, op} - never another server's file tool. A resultFile can be the next call's argumentsFile.`

// inputSchema is the tool's JSON schema. A golden test pins it, so every
// change to what agents see is deliberate; a size test keeps the whole
// definition under 3 KB. Details belong in info, errors and the README.
const inputSchema = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["list", "search", "info", "call", "readresult", "run"]},
    "type": {"enum": ["tool", "resource", "prompt"]},
    "connection": {"type": "string", "description": "Server alias (c1..) or name."},
    "filter_server": {"type": "string", "description": "list: alias/name prefix."},
    "query": {"type": "string", "description": "search: the task in words."},
    "tool": {"type": "string"},
    "uri": {"type": "string", "description": "Resource URI or template."},
    "prompt": {"type": "string"},
    "path": {"type": "string", "description": "info/call: name or URI, by type. query: gjson path, e.g. items.#(size>9)#.name"},
    "arguments": {"type": "object", "description": "call: the inputs."},
    "args": {"type": "object", "description": "=arguments"},
    "argumentsFile": {"type": "string", "description": "call: JSON/TOON file of inputs; arguments override."},
    "argumentsPath": {"type": "string", "description": "gjson path into argumentsFile."},
    "argumentsKey": {"type": "string", "description": "pass that value under this key."},
    "meta": {"type": "object", "description": "sent as _meta."},
    "resultToFile": {"type": "boolean"},
    "resultSizeThreshold": {"type": "integer", "description": "bytes above which the result goes to a file (0 = never)."},
    "timeout": {"type": "number", "description": "call/run: seconds."},
    "steps": {"type": "array", "items": {"type": "object"}, "description": "run: requests, optional id; \"$ID.value.PATH\", \"$ID.resultFile\" use earlier answers."},
    "refresh": {"type": "boolean"},
    "includeTools": {"type": "boolean"},
    "includeInputSchema": {"type": "boolean"},
    "includeAnnotations": {"type": "boolean"},
    "format": {"type": "string", "enum": ["compact", "detail"]},
    "limit": {"type": "integer"},
    "offset": {"type": "integer", "description": "list: entries to skip; read: byte offset."},
    "resultFile": {"type": "string"},
    "op": {"type": "string", "enum": ["stat", "head", "tail", "slice", "grep", "read", "query"]},
    "lines": {"type": "integer", "description": "head/tail: count (default 50)."},
    "fromLine": {"type": "integer", "description": "slice/grep: first line (1-based)."},
    "toLine": {"type": "integer"},
    "pattern": {"type": "string", "description": "grep: case-insensitive regexp."},
    "context": {"type": "integer", "description": "grep: lines around matches."},
    "maxMatches": {"type": "integer"},
    "maxBytes": {"type": "integer"}
  },
  "required": ["action"]
}`

// InputSchema returns the tool's input schema as raw JSON.
func InputSchema() json.RawMessage { return json.RawMessage(inputSchema) }
