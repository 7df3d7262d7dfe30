package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"dispatch/dispatch"
	"dispatch/spill"
)

// render prints a response: JSON with --json, readable text otherwise.
func (g *Globals) render(w io.Writer, resp any) error {
	if g.JSON {
		deepest := answerNesting(resp)
		if deepest > dispatch.MaxIndentedNesting {
			return &usageErr{fmt.Errorf("the answer is nested %d levels deep, more than the %d levels --json can print (MaxIndentedNesting); leave out --json (and --toon) to print it, or save it with -o FILE",
				deepest, dispatch.MaxIndentedNesting)}
		}
		// Compact first: indented, an answer nested deeper than
		// MaxIndentDepth (a tool's schema as well as a result) would grow
		// with the square of the depth (a 54 KB schema printed 162 MB),
		// and a program reads the JSON as well without indentation.
		var compact bytes.Buffer
		enc := json.NewEncoder(&compact)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(resp); err != nil {
			return fmt.Errorf("encode the answer as JSON: %w", err)
		}
		if dispatch.JSONNesting(compact.Bytes()) > dispatch.MaxIndentDepth {
			_, err := w.Write(compact.Bytes())
			return err
		}
		return dispatch.WriteJSONIndented(w, bytes.TrimSuffix(compact.Bytes(), []byte("\n")))
	}
	// A tool's result is its data, kept byte-exact unless a person reads
	// it on a terminal; everything else a server wrote is always escaped.
	data := func(text string) string { return text }
	if isTerminal(w) {
		data = func(text string) string { return escapeControls(text, true) }
	}
	switch r := resp.(type) {
	case *dispatch.ListResponse:
		return renderList(w, r)
	case *dispatch.SearchResponse:
		return renderSearch(w, r)
	case *dispatch.InfoResponse:
		if err := renderJSON(w, r.Tool); err != nil {
			return err
		}
		if r.RunsAsTask {
			fmt.Fprintln(w, runsAsTask)
		}
		for _, warning := range r.Warnings {
			fmt.Fprintf(w, "warning: %s\n", cell(warning))
		}
		return nil
	case *dispatch.CallResponse:
		return renderCall(w, r, data, !isTerminal(w))
	case *dispatch.ReadResponse:
		_, err := fmt.Fprintln(w, data(strings.TrimRight(r.Text, "\n")))
		return err
	case *dispatch.SavedPayload:
		return renderSaved(w, r)
	case *dispatch.SideListResponse:
		return renderSideList(w, r)
	case *dispatch.ResourceInfoResponse:
		return renderJSONValue(w, r)
	case *dispatch.PromptInfoResponse:
		return renderJSONValue(w, r)
	case *dispatch.ResourceResponse:
		return renderResource(w, r, data)
	case *dispatch.PromptResponse:
		return renderPrompt(w, r, data)
	}
	return fmt.Errorf("no text form for %T", resp)
}

func renderJSON(w io.Writer, raw json.RawMessage) error {
	var out bytes.Buffer
	if dispatch.JSONNesting(raw) > dispatch.MaxIndentDepth {
		// json.Indent's output grows with the square of the depth and it
		// refuses nesting past 10,000 levels: print it as a result file
		// holds it (indentation bounded, compact past the limit).
		if err := dispatch.WriteJSONIndented(&out, raw); err != nil {
			return fmt.Errorf("format JSON: %w", err)
		}
	} else {
		if err := json.Indent(&out, raw, "", "  "); err != nil {
			return fmt.Errorf("format JSON: %w", err)
		}
		out.WriteByte('\n')
	}
	// JSON holds no raw C0 characters; DEL and C1 ones become \u escapes,
	// which leave it valid and meaning the same.
	_, err := io.WriteString(w, escapeControls(out.String(), true))
	return err
}

// answerNesting is the deepest nesting of a call's answer, which --json
// cannot print past 10,000 levels: encoding/json stops there (the same
// MaxIndentedNesting), with an error about json.RawMessage that reads as
// dispatch's own fault.
func answerNesting(resp any) int {
	r, ok := resp.(*dispatch.CallResponse)
	if !ok {
		return 0
	}
	deepest := max(dispatch.JSONNesting(r.StructuredContent), dispatch.JSONNesting(r.Meta))
	for _, item := range r.Content {
		deepest = max(deepest, dispatch.JSONNesting(item))
	}
	return deepest
}

func renderList(w io.Writer, r *dispatch.ListResponse) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	// --format detail gives each connection's ID and transport; show them
	// as the JSON answer does.
	detail := slices.ContainsFunc(r.Connections, func(c dispatch.ConnectionEntry) bool { return c.ID != "" })
	if detail {
		fmt.Fprintln(tw, "ALIAS\tNAME\tID\tTRANSPORT\tSTATUS\tTOOLS\tSERVER\tERROR")
	} else {
		fmt.Fprintln(tw, "ALIAS\tNAME\tSTATUS\tTOOLS\tSERVER\tERROR")
	}
	for _, c := range r.Connections {
		fmt.Fprintf(tw, "%s\t%s\t", cell(c.Alias), cell(dash(c.Name)))
		if detail {
			fmt.Fprintf(tw, "%s\t%s\t", cell(dash(c.ID)), cell(dash(c.Transport)))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", cell(c.Status), c.ToolCount, cell(dash(c.Server)), cell(oneLine(c.Error)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range r.Connections {
		for _, warning := range c.Warnings {
			fmt.Fprintf(w, "%s: warning: %s\n", cell(c.Alias), cell(warning))
		}
	}
	for _, c := range r.Connections {
		if len(c.ToolNames) > 0 {
			fmt.Fprintf(w, "\n%s: %s\n", cell(c.Alias), cell(strings.Join(c.ToolNames, ", ")))
		}
	}
	if len(r.Tools) > 0 {
		fmt.Fprintln(w)
		for _, t := range r.Tools {
			fmt.Fprintf(w, "%s/%s(%s)\n    %s\n", cell(t.Connection), cell(t.Name), cell(t.Params), escapeControls(t.Description, true))
			renderToolExtras(w, t)
		}
	}
	// The answer's hint is phrased for an agent (JSON requests); say the
	// same in the command line's terms.
	switch {
	case r.NextOffset > 0:
		fmt.Fprintf(w, "\nMore tools: repeat with --offset %d\n", r.NextOffset)
	case r.PastEnd:
		fmt.Fprintf(w, "\nThe --offset is past the end: there are %d tools; page from --offset 0 (or leave it out) with --limit N\n", r.TotalTools)
	case r.Hint != "" && len(r.Tools) == 0:
		fmt.Fprintln(w, "\nToo many tools to name here: use dispatch search WORDS, or dispatch list -C ALIAS")
	}
	return nil
}

func renderSearch(w io.Writer, r *dispatch.SearchResponse) error {
	if len(r.Hits) == 0 {
		switch {
		case r.Total+r.TotalResources+r.TotalPrompts == 0:
			// Searched only a kind the servers have none of (--type).
			fmt.Fprintf(w, "nothing to search for %q: the servers offer none of the kind asked for; dispatch list --type tool, resource or prompt shows what they have\n", r.Query)
		case r.TotalResources+r.TotalPrompts == 0:
			fmt.Fprintf(w, "no tools match %q among %d tools; try other words (what the tool does), or dispatch list --tools\n", r.Query, r.Total)
		default:
			var among []string
			for _, n := range []struct {
				count int
				what  string
			}{{r.Total, "tools"}, {r.TotalResources, "resources"}, {r.TotalPrompts, "prompts"}} {
				if n.count > 0 {
					among = append(among, fmt.Sprintf("%d %s", n.count, n.what))
				}
			}
			fmt.Fprintf(w, "nothing matches %q among %s; try other words\n", r.Query, strings.Join(among, ", "))
		}
	}
	for i, h := range r.Hits {
		switch {
		case h.Type == dispatch.TypePrompt:
			fmt.Fprintf(w, "%2d. prompt %s/%s(%s)  score %.3f\n    %s\n", i+1, cell(h.Connection), cell(h.Name), cell(h.Arguments), h.Score, escapeControls(h.Description, true))
		case h.Type == dispatch.TypeResource:
			uri := h.URI
			if uri == "" {
				uri = h.URITemplate
			}
			fmt.Fprintf(w, "%2d. resource %s %s  score %.3f\n    %s\n", i+1, cell(h.Connection), cell(uri), h.Score, escapeControls(h.Description, true))
		default:
			fmt.Fprintf(w, "%2d. %s/%s(%s)  score %.3f\n    %s\n", i+1, cell(h.Connection), cell(h.Name), cell(h.Params), h.Score, escapeControls(h.Description, true))
			renderToolExtras(w, h.ToolEntry)
		}
		if len(h.Unmatched) > 0 {
			fmt.Fprintf(w, "    does not match: %s\n", cell(strings.Join(h.Unmatched, ", ")))
		}
	}
	for _, u := range r.Unreachable {
		fmt.Fprintf(w, "not searched: %s\n", cell(u))
	}
	return nil
}

// renderCall prints a call's result. exact (stdout is a pipe or a file)
// writes each text as the server sent it, trailing newlines and "\r\n"
// kept, and adds a newline only to a text that has none, so that shell
// output stays in lines (-o FILE saves the text exactly). On a terminal
// each text ends with one newline.
func renderCall(w io.Writer, r *dispatch.CallResponse, data func(string) string, exact bool) error {
	if r.Spill != nil {
		return renderSpill(w, r.Spill.ResultFile, r.Spill)
	}
	for _, item := range r.Content {
		var text struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(item, &text); err == nil && text.Type == "text" {
			if !exact {
				// A text's last line break may be a Windows server's CR LF:
				// on a terminal it is the line break printed, not a \u000d.
				fmt.Fprintln(w, data(strings.TrimSuffix(strings.TrimRight(text.Text, "\n"), "\r")))
				continue
			}
			io.WriteString(w, text.Text)
			if !strings.HasSuffix(text.Text, "\n") {
				io.WriteString(w, "\n")
			}
			continue
		}
		if err := renderJSON(w, item); err != nil {
			return err
		}
	}
	// The text may only summarize the structured content; the one-shot
	// promise is the full result.
	if !r.TextHoldsStructured() {
		return renderJSON(w, r.StructuredContent)
	}
	return nil
}

func renderSpill(w io.Writer, path string, s *dispatch.SpillInfo) error {
	if s.Format == string(spill.FormatBinary) {
		_, err := fmt.Fprintf(w, "saved to %s\n  %s (%d bytes), decoded binary. %s\n", path, s.Size, s.Bytes, cell(s.Hint))
		return err
	}
	fmt.Fprintf(w, "result saved to %s\n  %s (%d bytes), ~%d tokens, %d lines, %s", path, s.Size, s.Bytes, s.EstimatedTokens, s.Lines, s.Format)
	if s.Saved != "" {
		fmt.Fprintf(w, ", the result's %s", s.Saved)
	}
	fmt.Fprintln(w)
	switch {
	case len(s.TopLevelKeys) > 0:
		fmt.Fprintf(w, "  keys: %s\n", cell(strings.Join(s.TopLevelKeys, ", ")))
	case s.Elements != nil:
		fmt.Fprintf(w, "  array of %d elements", *s.Elements)
		if len(s.FirstElementKeys) > 0 {
			fmt.Fprintf(w, "; first has keys: %s", cell(strings.Join(s.FirstElementKeys, ", ")))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "preview:\n%s\n", indent(escapeControls(s.Preview, true), "  "))
	fmt.Fprintf(w, "read it with: dispatch readresult %s --op head\n", path)
	return nil
}

func renderSaved(w io.Writer, s *dispatch.SavedPayload) error {
	return renderSpill(w, s.Path, &s.SpillInfo)
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// cell is one line of text a server wrote (a name, a table cell), with
// every control character escaped: a newline in it would forge a line.
func cell(s string) string { return escapeControls(s, false) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}

func spillLimits() spill.Limits { return spill.Limits{} }

// runsAsTask is the text form of an answer's "runsAsTask": true.
const runsAsTask = "runs as a task: its server requires it; dispatch creates the task and waits for its result"

// renderToolExtras prints, under a tool's line, that it runs as a task and
// what --schema and --annotations asked for, as compact JSON, indented to
// read as part of that tool.
func renderToolExtras(w io.Writer, t dispatch.ToolEntry) {
	if t.RunsAsTask {
		fmt.Fprintf(w, "    %s\n", runsAsTask)
	}
	if len(t.InputSchema) > 0 {
		var compact bytes.Buffer
		if json.Compact(&compact, t.InputSchema) == nil {
			fmt.Fprintf(w, "    input schema: %s\n", compact.String())
		}
	}
	if len(t.Annotations) > 0 {
		if data, err := json.Marshal(t.Annotations); err == nil {
			fmt.Fprintf(w, "    annotations: %s\n", data)
		}
	}
	for _, warning := range t.Warnings {
		fmt.Fprintf(w, "    warning: %s\n", cell(warning))
	}
}
