package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"dispatch/dispatch"
)

// renderResource prints each content: a text as it is, a saved part as
// where it went, anything else as JSON.
func renderResource(w io.Writer, r *dispatch.ResourceResponse, data func(string) string) error {
	if r.Saved != nil {
		return renderSaved(w, r.Saved)
	}
	for _, item := range r.Contents {
		if err := renderPart(w, item, data); err != nil {
			return err
		}
	}
	return nil
}

// renderPrompt prints each message under its role.
func renderPrompt(w io.Writer, r *dispatch.PromptResponse, data func(string) string) error {
	if r.Spill != nil {
		return renderSpill(w, r.Spill.ResultFile, r.Spill)
	}
	if r.Description != "" {
		fmt.Fprintf(w, "# %s\n", cell(r.Description))
	}
	for _, msg := range r.Messages {
		fmt.Fprintf(w, "[%s]\n", cell(gjson.GetBytes(msg, "role").String()))
		content := gjson.GetBytes(msg, "content")
		item := json.RawMessage(content.Raw)
		if content.Get("type").String() == "resource" {
			item = json.RawMessage(content.Get("resource").Raw)
		}
		if err := renderPart(w, item, data); err != nil {
			return err
		}
	}
	return nil
}

// renderPart prints one content item or resource content.
func renderPart(w io.Writer, item json.RawMessage, data func(string) string) error {
	var part struct {
		Type       string `json:"type"`
		URI        string `json:"uri"`
		MimeType   string `json:"mimeType"`
		Text       *string
		ResultFile string `json:"resultFile"`
		Format     string `json:"format"`
		Size       string `json:"size"`
		Bytes      int64  `json:"bytes"`
	}
	if err := json.Unmarshal(item, &part); err != nil {
		return renderJSON(w, item)
	}
	switch {
	case part.ResultFile != "":
		what := strings.TrimSpace(strings.Join([]string{part.Type, part.URI, part.MimeType}, " "))
		fmt.Fprintf(w, "%s saved to %s (%s, %d bytes, %s)\n", cell(what), cell(part.ResultFile), part.Size, part.Bytes, part.Format)
	case part.Text != nil:
		fmt.Fprintln(w, data(strings.TrimRight(*part.Text, "\n")))
	default:
		return renderJSON(w, item)
	}
	return nil
}

// renderSideList prints resources and templates, or prompts, one per line
// with its description beneath.
func renderSideList(w io.Writer, r *dispatch.SideListResponse) error {
	for _, e := range r.Resources {
		name := e.URI
		if name == "" {
			name = e.URITemplate + " (template)"
		}
		line := cell(e.Connection) + "  " + cell(name)
		if e.MIMEType != "" {
			line += "  " + cell(e.MIMEType)
		}
		if e.Size != nil {
			line += fmt.Sprintf("  %d bytes", *e.Size)
		}
		fmt.Fprintln(w, line)
		if e.Description != "" {
			fmt.Fprintf(w, "    %s\n", cell(e.Description))
		}
	}
	for _, p := range r.Prompts {
		fmt.Fprintf(w, "%s  %s(%s)\n", cell(p.Connection), cell(p.Name), cell(p.Arguments))
		if p.Description != "" {
			fmt.Fprintf(w, "    %s\n", cell(p.Description))
		}
	}
	// The answer's hint is phrased for an agent; say it in the command
	// line's terms.
	shown := int64(len(r.Resources) + len(r.Prompts))
	switch {
	case r.NextOffset > 0 && r.NextOffset > shown:
		fmt.Fprintf(w, "%d of %d shown, from --offset %d; more with --offset %d\n", shown, r.Total, r.NextOffset-shown, r.NextOffset)
	case r.NextOffset > 0:
		fmt.Fprintf(w, "%d of %d shown; more with --offset %d\n", shown, r.Total, r.NextOffset)
	case r.PastEnd:
		fmt.Fprintf(w, "The --offset is past the end: there are %d %s; page from --offset 0 (or leave it out) with --limit N\n", r.Total, r.Kind)
	case shown == 0 && r.Hint != "":
		fmt.Fprintln(w, cell(agentTerms.Replace(r.Hint)))
	}
	for _, u := range r.Unreachable {
		fmt.Fprintf(w, "not reached: %s\n", cell(u))
	}
	return nil
}

// renderJSONValue prints a value as indented JSON.
func renderJSONValue(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return renderJSON(w, data)
}
