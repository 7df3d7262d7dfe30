package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"dispatch/connections"
)

// ExposeOptions say what the agent sees beside proxy-dispatch.
type ExposeOptions struct {
	// Tools are the --expose flags: "tool", "c1/tool" or "NAME/tool". The
	// servers' own expose lists (config) are added to them.
	Tools []string
	// Transparent lists every tool, resource, resource template and prompt
	// of every server (--transparent).
	Transparent bool
}

// Enabled reports whether anything is shown beside proxy-dispatch, or
// could be once a config names tools to expose.
func (o ExposeOptions) Enabled() bool { return o.Transparent || len(o.Tools) > 0 }

// Surface is what dispatch lists upstream beside proxy-dispatch: each item
// under its upstream name, with the connection and downstream name it
// stands for, and its definition as the server published it.
type Surface struct {
	Tools     []SurfaceTool
	Resources []SurfaceResource // resources and templates
	Prompts   []SurfacePrompt
	// Problems are the expose entries that could not be honoured (unknown
	// tool, unreachable server, filtered, ambiguous); see ExposeProblem.
	Problems []*ExposeProblem
}

// SurfaceTool is one downstream tool listed upstream.
type SurfaceTool struct {
	Name       string          // upstream name
	Connection string          // alias
	Tool       string          // the server's name for it
	Definition json.RawMessage // as published, name included
}

// SurfaceResource is one downstream resource or template listed upstream.
type SurfaceResource struct {
	URI        string // upstream URI or URI template
	Connection string
	Original   string // the server's URI or template
	Template   bool
	Definition json.RawMessage
}

// SurfacePrompt is one downstream prompt listed upstream.
type SurfacePrompt struct {
	Name       string
	Connection string
	Prompt     string
	Definition json.RawMessage
}

// ExposeProblem is an expose entry dispatch could not list: where it came
// from, and why.
type ExposeProblem struct {
	Entry string // "--expose c1/x" or "servers.files.expose \"x\" in servers.toml"
	Err   error
	// Fatal problems are mistakes in the configuration itself (a tool the
	// filters deny, a name on several servers): at start they stop
	// dispatch. The others (unknown tool, server not reachable) may heal
	// and are warnings; the entry is tried again whenever the surface is
	// computed again.
	Fatal bool
}

func (p *ExposeProblem) Error() string { return p.Entry + ": " + p.Err.Error() }

// FatalExposeProblems returns the fatal problems of s as one error, or nil.
func (s Surface) FatalExposeProblems() error {
	var errs []error
	for _, p := range s.Problems {
		if p.Fatal {
			errs = append(errs, p)
		}
	}
	return errors.Join(errs...)
}

// Surface computes what the agent sees beside proxy-dispatch. Catalogs
// come from the cache where it has them, so listing starts no server that
// has been seen before; a server that cannot be reached contributes
// nothing (and a problem when an expose entry names it).
func (s *Service) Surface(ctx context.Context, opts ExposeOptions) Surface {
	var out Surface
	conns := s.conns.Conns()
	if opts.Transparent {
		out.Tools = transparentTools(s.catalogs(ctx, conns, false))
		out.Resources = transparentResources(resourceCatalogs(ctx, conns, false))
		out.Prompts = transparentPrompts(promptCatalogs(ctx, conns, false))
	} else {
		out.Tools, out.Problems = s.exposedTools(ctx, opts.Tools, conns)
	}
	out.Tools, out.Problems = dropInvalidToolNames(out.Tools, out.Problems)
	nameTools(out.Tools, connectionPrefixes(conns))
	namePrompts(out.Prompts, connectionPrefixes(conns))
	nameResources(out.Resources, connectionPrefixes(conns))
	return out
}

// MaxToolNameLength is the longest tool name listed beside
// proxy-dispatch, as MCP allows (1 to 128 characters).
const MaxToolNameLength = 128

// dropInvalidToolNames leaves out the tools whose names MCP does not allow
// (characters other than letters, digits, "_", "-", "."; empty or longer
// than MaxToolNameLength): one such name from a hostile server, shown
// verbatim, would make many agents' model APIs refuse the whole tool list.
// Each is a warning; the tool is still called through proxy-dispatch.
func dropInvalidToolNames(tools []SurfaceTool, problems []*ExposeProblem) ([]SurfaceTool, []*ExposeProblem) {
	kept := tools[:0]
	for _, t := range tools {
		if t.Tool != "" && len(t.Tool) <= MaxToolNameLength && toolNameChars(t.Tool) == t.Tool {
			kept = append(kept, t)
			continue
		}
		problems = append(problems, &ExposeProblem{
			Entry: fmt.Sprintf("%s: tool %q", t.Connection, t.Tool),
			Err:   fmt.Errorf("its name is not a valid MCP tool name (1 to %d letters, digits, \"_\", \"-\", \".\"), so it is not listed; call it through proxy-dispatch", MaxToolNameLength),
		})
	}
	return kept, problems
}

// exposeEntry is one tool an expose list asks for.
type exposeEntry struct {
	origin     string // for messages
	connection string // alias, name or ID; empty: any
	tool       string
}

// exposedTools resolves the --expose flags and each server's expose list
// the way a call resolves its tool, so that what is listed is exactly what
// a call would reach, filters included.
func (s *Service) exposedTools(ctx context.Context, flags []string, conns []*connections.Conn) ([]SurfaceTool, []*ExposeProblem) {
	var entries []exposeEntry
	for _, flag := range flags {
		entries = append(entries, exposeEntry{origin: "--expose " + flag, tool: flag})
	}
	for _, c := range conns {
		for _, name := range c.Exposed() {
			entries = append(entries, exposeEntry{origin: exposeOrigin(c, name), connection: c.Alias, tool: name})
		}
	}
	var (
		tools    []SurfaceTool
		problems []*ExposeProblem
		seen     = map[string]bool{}
	)
	for _, e := range entries {
		req := s.qualifyTool(ctx, Request{Action: "call", Connection: e.connection, Tool: e.tool})
		conn, def, err := s.resolveTool(ctx, req.Connection, req.Tool)
		if err != nil {
			fatal := fatalExposeErr(err)
			var usage *UsageError
			if errors.As(err, &usage) {
				// Its hint is written for a request ("connection":…);
				// the caller says how to fix an expose entry.
				err = errors.New(usage.Msg)
			}
			problems = append(problems, &ExposeProblem{Entry: e.origin, Err: err, Fatal: fatal})
			continue
		}
		key := conn.Alias + "\x00" + def.Name
		if seen[key] {
			continue // named twice (flag and config): listed once
		}
		seen[key] = true
		tools = append(tools, SurfaceTool{Connection: conn.Alias, Tool: def.Name, Definition: def.Raw})
	}
	return tools, problems
}

// fatalExposeErr tells a mistake in the configuration (the tool is
// filtered, or on several servers) from a state that may pass (unknown
// yet, server down).
func fatalExposeErr(err error) bool {
	var denied *connections.ToolDeniedError
	var notFound *ToolNotFoundError
	switch {
	case errors.As(err, &denied):
		return true
	case errors.As(err, &notFound):
		return false
	}
	return IsUsage(err) // ambiguous name, unknown connection
}

func exposeOrigin(c *connections.Conn, tool string) string {
	if c.Config.Name != "" {
		return fmt.Sprintf("server %q: expose %q", c.Config.Name, tool)
	}
	return fmt.Sprintf("%s: expose %q", c.Alias, tool)
}

func transparentTools(cats []catalog) []SurfaceTool {
	var tools []SurfaceTool
	for _, cat := range cats {
		for _, t := range cat.tools {
			tools = append(tools, SurfaceTool{Connection: cat.conn.Alias, Tool: t.Name, Definition: t.Raw})
		}
	}
	return tools
}

func transparentResources(cats []sideCatalog) []SurfaceResource {
	var out []SurfaceResource
	for _, cat := range cats {
		for _, r := range cat.resources {
			out = append(out, SurfaceResource{Connection: cat.conn.Alias, Original: r.Key(), Template: r.URITemplate != "", Definition: r.Raw})
		}
	}
	return out
}

func transparentPrompts(cats []sideCatalog) []SurfacePrompt {
	var out []SurfacePrompt
	for _, cat := range cats {
		for _, p := range cat.prompts {
			out = append(out, SurfacePrompt{Connection: cat.conn.Alias, Prompt: p.Name, Definition: p.Raw})
		}
	}
	return out
}

// ClashSeparator joins a connection's prefix and a tool or prompt name
// when the name is on several connections: "files__read_file". MCP tool
// names may hold letters, digits, "_", "-" and "." only, so "/" (the form
// proxy-dispatch takes) cannot be used.
const ClashSeparator = "__"

// connectionPrefixes gives each connection the prefix its clashing names
// take: its configured name written with the characters a tool name
// allows, or its alias when it has no name or that form is another's.
func connectionPrefixes(conns []*connections.Conn) map[string]string {
	prefixes := make(map[string]string, len(conns))
	taken := map[string]int{}
	for _, c := range conns {
		taken[toolNameChars(c.Config.Name)]++
	}
	for _, c := range conns {
		p := toolNameChars(c.Config.Name)
		if p == "" || taken[p] > 1 {
			p = c.Alias
		}
		prefixes[c.Alias] = p
	}
	return prefixes
}

// toolNameChars replaces what an MCP tool name may not hold with "_".
func toolNameChars(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			return r
		}
		return '_'
	}, s)
}

// nameTools gives each tool its upstream name: its own when no other
// listed tool has it, else the connection's prefix, ClashSeparator and the
// name. proxy-dispatch is taken: a server's tool of that name is always
// prefixed.
func nameTools(tools []SurfaceTool, prefixes map[string]string) {
	names := make([]string, len(tools))
	conns := make([]string, len(tools))
	for i, t := range tools {
		names[i], conns[i] = t.Tool, t.Connection
	}
	for i, name := range uniqueNames(names, conns, prefixes, ClashSeparator, ToolName) {
		tools[i].Name = name
	}
}

func namePrompts(prompts []SurfacePrompt, prefixes map[string]string) {
	names := make([]string, len(prompts))
	conns := make([]string, len(prompts))
	for i, p := range prompts {
		names[i], conns[i] = p.Prompt, p.Connection
	}
	for i, name := range uniqueNames(names, conns, prefixes, ClashSeparator, "") {
		prompts[i].Name = name
	}
}

// nameResources keeps each URI (or template) when it is on one connection;
// on several, each becomes PREFIX+URI: the prefix joins the URI's scheme
// ("files+file:///a"), which keeps it a URI, and reads go to that
// connection.
func nameResources(resources []SurfaceResource, prefixes map[string]string) {
	names := make([]string, len(resources))
	conns := make([]string, len(resources))
	for i, r := range resources {
		names[i], conns[i] = r.Original, r.Connection
	}
	for i, name := range uniqueNames(names, conns, prefixes, "+", "") {
		resources[i].URI = name
	}
}

// uniqueNames returns an upstream name for each (name, connection): the
// name itself when it is unique and not reserved, else prefix+sep+name.
// A prefixed name that still meets another (a server that publishes
// "files__x" beside "x") is dropped from neither: the later one takes the
// connection's alias as prefix, and a numeric suffix as the last resort,
// so names are always unique.
func uniqueNames(names, conns []string, prefixes map[string]string, sep, reserved string) []string {
	count := map[string]int{}
	for _, n := range names {
		count[n]++
	}
	out := make([]string, len(names))
	used := map[string]bool{}
	if reserved != "" {
		used[reserved] = true
	}
	// Unique names first, so that a prefixed name never takes one a
	// server published.
	for i, n := range names {
		if count[n] == 1 && n != reserved {
			out[i] = n
			used[n] = true
		}
	}
	for i, n := range names {
		if out[i] != "" {
			continue
		}
		candidates := []string{prefixes[conns[i]] + sep + n, conns[i] + sep + n}
		for _, c := range candidates {
			if !used[c] {
				out[i] = c
				break
			}
		}
		for k := 2; out[i] == ""; k++ {
			if c := fmt.Sprintf("%s%s%s_%d", conns[i], sep, n, k); !used[c] {
				out[i] = c
			}
		}
		used[out[i]] = true
	}
	return out
}

// ResourceRoute returns the connection and the server's own URI for uri,
// a URI of the surface: a listed resource's, or one a listed template
// expands to (a prefixed template's prefix is taken off).
func (s Surface) ResourceRoute(uri string) (alias, original string, ok bool) {
	for _, r := range s.Resources {
		if !r.Template && r.URI == uri {
			return r.Connection, r.Original, true
		}
	}
	for _, r := range s.Resources {
		if !r.Template {
			continue
		}
		prefix := strings.TrimSuffix(r.URI, r.Original)
		rest, found := strings.CutPrefix(uri, prefix)
		if !found {
			continue
		}
		if _, match := matchTemplate(r.Original, rest); match {
			return r.Connection, rest, true
		}
	}
	return "", "", false
}

// UpstreamURI is the URI the agent knows for a URI of alias: the listed
// resource's, or the URI with the prefix its connection's templates took
// on a clash.
func (s Surface) UpstreamURI(alias, uri string) string {
	for _, r := range s.Resources {
		if r.Connection == alias && !r.Template && r.Original == uri {
			return r.URI
		}
	}
	for _, r := range s.Resources {
		if r.Connection == alias && r.Template {
			if _, match := matchTemplate(r.Original, uri); match {
				return strings.TrimSuffix(r.URI, r.Original) + uri
			}
		}
	}
	return uri
}
