package dispatch

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"dispatch/connections"
)

// ToolNotFoundError means no connection has the tool; it lists the closest
// names so the agent can correct itself in one step.
type ToolNotFoundError struct {
	Tool        string
	Suggestions []string // "c1/read_file"
	Unreachable []string // "c3: connect: ..."
	// Cached are the connections searched through a cached catalog, which
	// has no expiry: a tool their server gained since is not in it.
	Cached []string // "c1"
	// Unnamable are the tools left out of the catalogs searched because
	// their server named them with bytes that are not valid UTF-8.
	Unnamable []string // `c1: "t\xff"`
	// Cut are the catalogs searched that were cut to the catalog bounds:
	// the tool may be past the cut.
	Cut []string // "c1: the server publishes more than ..."
	// NoConnection is the prefix of a tool written "c9/read_file" when no
	// connection has that alias or name; Connections are the ones there are.
	NoConnection string
	Connections  []string // "c1 (files)"
}

func (e *ToolNotFoundError) Error() string {
	var b strings.Builder
	if len(e.Unreachable) > 0 {
		// The real cause leads: the tool may well be on a server that
		// could not be asked.
		fmt.Fprintf(&b, "could not reach %s to look for tool %q there, so it may yet exist: %s",
			strings.Join(unreachableAliases(e.Unreachable), ", "), e.Tool, strings.Join(e.Unreachable, "; "))
		if len(e.Suggestions) > 0 {
			fmt.Fprintf(&b, "; among the tools reached, did you mean %s?", strings.Join(e.Suggestions, ", "))
		}
	} else {
		fmt.Fprintf(&b, "no tool named %q", e.Tool)
		if e.NoConnection != "" {
			fmt.Fprintf(&b, ": there is no connection %q (the connections are %s)", e.NoConnection, strings.Join(e.Connections, ", "))
		}
		if len(e.Suggestions) > 0 {
			fmt.Fprintf(&b, "; did you mean %s?", strings.Join(e.Suggestions, ", "))
		} else {
			b.WriteString(`; use {"action":"search","query":"..."} to find one`)
		}
	}
	if len(e.Cut) > 0 {
		fmt.Fprintf(&b, " (some catalogs were cut, so it may be past the cut: %s)", strings.Join(e.Cut, "; "))
	}
	if len(e.Unnamable) > 0 {
		fmt.Fprintf(&b, ". Left out of the catalogs: tools their server named with bytes that are not valid UTF-8 (%s), which dispatch cannot send back as the server wrote them, so they cannot be called through it; the server must fix those names",
			strings.Join(e.Unnamable, ", "))
	}
	if len(e.Cached) > 0 {
		// Not refreshed here: starting every server on a typo would cost
		// more than the rare stale catalog.
		fmt.Fprintf(&b, ` (the tool lists of %s come from the catalog cache, not from the running servers: if the tool is new, refresh them with {"action":"list","refresh":true}, or dispatch list --refresh)`,
			strings.Join(e.Cached, ", "))
	}
	return b.String()
}

// unreachableAliases are the aliases that head "c3: connect: ..." errors.
func unreachableAliases(errs []string) []string {
	aliases := make([]string, 0, len(errs))
	for _, e := range errs {
		alias, _, _ := strings.Cut(e, ":")
		aliases = append(aliases, alias)
	}
	return aliases
}

// resolveTool finds the connection that serves tool. With connKey it looks
// only there; otherwise a name found on exactly one connection resolves to
// it, and a name found on several is an error listing them.
func (s *Service) resolveTool(ctx context.Context, connKey, tool string) (*connections.Conn, toolDef, error) {
	conns, err := s.selectConns(connKey)
	if err != nil {
		return nil, toolDef{}, err
	}
	if conn, def, ok := s.resolveKnown(conns, tool); ok {
		return conn, def, nil
	}
	cats := s.catalogs(ctx, conns, false)
	matches := toolMatches(cats, tool)
	switch {
	case len(matches) == 1:
		return matches[0].conn, matches[0].def, nil
	case len(matches) > 1:
		var names []string
		for _, m := range matches {
			names = append(names, describeConn(m.conn))
		}
		alias := matches[0].conn.Alias
		return nil, toolDef{}, usageBoth(fmt.Sprintf(`Add "connection":%q, or write the tool as %q`, alias, alias+"/"+tool),
			fmt.Sprintf("Add -C %s, or write the tool as %s", shellQuote(alias), shellQuote(alias+"/"+tool)),
			"tool %q exists on %d connections: %s", tool, len(matches), strings.Join(names, ", "))
	}
	if denied := deniedTool(cats, connKey, tool); denied != nil {
		return nil, toolDef{}, denied
	}
	if connKey != "" && cats[0].err != nil {
		return nil, toolDef{}, cats[0].err
	}
	notFound := &ToolNotFoundError{Tool: tool, Suggestions: suggest(tool, cats, 5)}
	if prefix, _, ok := strings.Cut(tool, "/"); ok && connKey == "" {
		if _, err := s.conns.Lookup(prefix); err != nil {
			notFound.NoConnection = prefix
			for _, c := range s.conns.Conns() {
				notFound.Connections = append(notFound.Connections, describeConn(c))
			}
		}
	}
	for _, cat := range cats {
		st := cat.conn.State()
		for _, cut := range st.CatalogCuts {
			notFound.Cut = append(notFound.Cut, cat.conn.Alias+": "+cut)
		}
		switch {
		case cat.err != nil:
			notFound.Unreachable = append(notFound.Unreachable, cat.err.Error())
		case st.Catalog == connections.CatalogCache:
			notFound.Cached = append(notFound.Cached, cat.conn.Alias)
		}
		for _, name := range cat.conn.Unnamable("tools") {
			notFound.Unnamable = append(notFound.Unnamable, cat.conn.Alias+": "+name)
		}
	}
	return nil, toolDef{}, notFound
}

// toolMatch is a connection that has the tool looked for.
type toolMatch struct {
	conn *connections.Conn
	def  toolDef
}

func toolMatches(cats []catalog, tool string) []toolMatch {
	var matches []toolMatch
	for _, cat := range cats {
		for _, t := range cat.tools {
			if t.Name == tool {
				matches = append(matches, toolMatch{cat.conn, t})
			}
		}
	}
	return matches
}

// resolveKnown resolves tool from the tool lists already known of conns,
// even those their servers announced a change to (stale), without asking
// any server: ok only when every one of conns has a list and exactly one
// has the tool. A server that announced a change and then stopped
// answering would otherwise hold every call to it by name for
// --connect-timeout before its own time limit even began; a tool that
// did go away meanwhile is reported by the server when called. Anything
// else (a list missing, a name not found or found twice) is left to the
// live lists.
func (s *Service) resolveKnown(conns []*connections.Conn, tool string) (*connections.Conn, toolDef, bool) {
	cats := make([]catalog, len(conns))
	for i, c := range conns {
		raw, _, ok := c.KnownTools()
		if !ok {
			return nil, toolDef{}, false
		}
		cats[i] = catalog{conn: c, tools: s.parsed.tools(c, raw)}
	}
	matches := toolMatches(cats, tool)
	if len(matches) != 1 {
		return nil, toolDef{}, false
	}
	return matches[0].conn, matches[0].def, true
}

// deniedTool returns why tool is refused when a connection's tool filter
// hides it: never "not found", which would send the agent looking for it
// elsewhere. A deny pattern refuses the name outright; an allow list that
// does not name it refuses it where the server publishes it, or where the
// agent asked for that connection (elsewhere it would blame a typo on
// a filter).
func deniedTool(cats []catalog, connKey, tool string) error {
	for _, cat := range cats {
		err := cat.conn.ToolAllowed(tool)
		var denied *connections.ToolDeniedError
		if errors.As(err, &denied) && (denied.ByDeny || connKey != "" || cat.conn.Publishes(tool)) {
			return err
		}
	}
	return nil
}

func describeConn(c *connections.Conn) string {
	if c.Config.Name != "" {
		return c.Alias + " (" + c.Config.Name + ")"
	}
	return c.Alias
}

// suggest returns up to n tool names close to want, as "alias/name".
func suggest(want string, cats []catalog, n int) []string {
	type scored struct {
		name  string
		score float64
	}
	var all []scored
	lw := strings.ToLower(want)
	for _, cat := range cats {
		for _, t := range cat.tools {
			lt := strings.ToLower(t.Name)
			d := editDistance(lw, lt)
			longest := max(len(lw), len(lt))
			score := 1 - float64(d)/float64(longest)
			if strings.Contains(lt, lw) || strings.Contains(lw, lt) {
				score += 0.5
			}
			score += 0.3 * tokenOverlap(lw, lt)
			if score >= 0.5 {
				all = append(all, scored{cat.conn.Alias + "/" + t.Name, score})
			}
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].name < all[j].name
	})
	var out []string
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].name)
	}
	return out
}

func tokenOverlap(a, b string) float64 {
	split := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ' ' || r == '/' }) {
			m[f] = true
		}
		return m
	}
	ta, tb := split(a), split(b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	common := 0
	for t := range ta {
		if tb[t] {
			common++
		}
	}
	return float64(common) / float64(max(len(ta), len(tb)))
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
