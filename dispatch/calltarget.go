package dispatch

// Examples of calls on resources and prompts.
const (
	exampleReadResource = `Example: {"action":"call","type":"resource","uri":"file:///notes.md"}, or with a template {"action":"call","type":"resource","uri":"demo://item/{id}","arguments":{"id":"2"}}`
	exampleGetPrompt    = `Example: {"action":"call","type":"prompt","prompt":"summarize","arguments":{"style":"short"}}`
)

// checkCallTarget checks that a call names what its type calls for, and
// nothing another type uses.
func (r *Request) checkCallTarget() error {
	switch r.Type {
	case "", TypeTool:
		if r.Tool == "" {
			hint := examples["call"]
			if r.URI != "" || r.Prompt != "" {
				hint = `Add "type":"resource" to read a resource by "uri", or "type":"prompt" to get a prompt. ` + hint
			}
			return usagef(hint, "call needs a \"tool\"")
		}
		if r.URI != "" || r.Prompt != "" {
			return usagef(examples["call"], "a tool call takes no \"uri\" or \"prompt\"; give \"type\" resource or prompt to read or get one")
		}
	case TypeResource:
		if r.URI == "" {
			return usagef(exampleReadResource, "call type=resource needs a \"uri\" (the resource's URI, or a URI template with \"arguments\")")
		}
		if r.Tool != "" || r.Prompt != "" {
			return usagef(exampleReadResource, "call type=resource takes a \"uri\", not \"tool\" or \"prompt\"")
		}
		if r.ArgumentsFile != "" {
			return usagef(exampleReadResource, "call type=resource takes template variables in \"arguments\", not \"argumentsFile\"")
		}
	case TypePrompt:
		if len(r.Prompt) > MaxNameBytes {
			return usagef(exampleGetPrompt, "prompt is %d bytes; at most %d are accepted (MaxNameBytes)", len(r.Prompt), MaxNameBytes)
		}
		if r.Prompt == "" {
			return usagef(exampleGetPrompt, "call type=prompt needs a \"prompt\" (the prompt's name)")
		}
		if r.Tool != "" || r.URI != "" {
			return usagef(exampleGetPrompt, "call type=prompt takes a \"prompt\", not \"tool\" or \"uri\"")
		}
		if r.ArgumentsFile != "" {
			return usagef(exampleGetPrompt, "call type=prompt takes its string arguments in \"arguments\", not \"argumentsFile\"")
		}
	default:
		return usagef(`Use "type": "tool" (the default), "resource" or "prompt"`, "unknown type %q", r.Type)
	}
	return nil
}
