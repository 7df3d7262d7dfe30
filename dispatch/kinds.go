package dispatch

import (
	"fmt"
	"strings"
)

// What list and info (and, through other actions, search and call) are
// about: the "type" parameter.
const (
	TypeTool     = "tool"
	TypeResource = "resource"
	TypePrompt   = "prompt"
)

// MaxNameBytes bounds "uri" and "prompt": no real URI or prompt name is
// longer, and a longer one would only cost time in the close-name search.
const MaxNameBytes = 8 << 10

// kind is Type with the default applied.
func (r *Request) kind() string {
	if r.Type == "" {
		return TypeTool
	}
	return r.Type
}

func (r *Request) checkType() error {
	switch r.Type {
	case "", TypeTool, TypeResource, TypePrompt:
		return nil
	}
	return usagef(fmt.Sprintf(`Use "type": "tool" (the default), "resource" or "prompt", e.g. {"action":%q,"type":"resource"}`, r.Action),
		"unknown type %q", r.Type)
}

// checkListType refuses list parameters that only make sense for tools.
func (r *Request) checkListType() error {
	if r.kind() == TypeTool {
		return nil
	}
	var toolOnly []string
	if r.IncludeTools != nil {
		toolOnly = append(toolOnly, "includeTools")
	}
	if r.IncludeInputSchema {
		toolOnly = append(toolOnly, "includeInputSchema")
	}
	if r.IncludeAnnotations {
		toolOnly = append(toolOnly, "includeAnnotations")
	}
	if len(toolOnly) > 0 {
		return usagef(fmt.Sprintf(`Leave them out: {"action":"list","type":%q} lists every %s with its one-line description; info shows one in full`, r.Type, r.Type),
			"parameter(s) %s apply to tools, not to type %q", quoteAll(toolOnly), r.Type)
	}
	return nil
}

// checkInfoTarget makes sure info names one thing of its type: "tool",
// "uri" or "prompt", whichever the type asks for, and no other.
func (r *Request) checkInfoTarget() error {
	want, example := "tool", examples["info"]
	switch r.kind() {
	case TypeResource:
		want, example = "uri", `Example: {"action":"info","type":"resource","uri":"file:///notes.txt"}`
	case TypePrompt:
		want, example = "prompt", `Example: {"action":"info","type":"prompt","prompt":"summarize"}`
	}
	given := map[string]string{"tool": r.Tool, "uri": r.URI, "prompt": r.Prompt}
	for _, other := range []string{"tool", "uri", "prompt"} {
		if other == want || given[other] == "" {
			continue
		}
		if given[want] == "" {
			// The agent named the thing but not its type.
			fixedType := map[string]string{"tool": TypeTool, "uri": TypeResource, "prompt": TypePrompt}[other]
			return usagef(fmt.Sprintf(`Add "type":%q: {"action":"info","type":%q,%q:%q}`, fixedType, fixedType, other, given[other]),
				"info of type %q needs %q, not %q", r.kind(), want, other)
		}
		return usagef(example, "info of type %q takes %q only, not %q", r.kind(), want, other)
	}
	value := given[want]
	if strings.TrimSpace(value) == "" {
		return usagef(example, "info needs a %q", want)
	}
	if len(value) > MaxNameBytes {
		return usagef(example, "%q is %d bytes long; at most %d", want, len(value), MaxNameBytes)
	}
	return nil
}
