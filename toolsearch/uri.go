package toolsearch

import (
	"strings"
	"sync"

	"dispatch/uritemplates"
)

// maxPastedURIs bounds the pasted URIs of one query that are matched
// against the resources and templates: each costs a pass over the
// templates, and no task names more than a few resources.
const maxPastedURIs = 4

// templateMatchers holds the index's templates parsed for matching, built
// on the first query that pastes a URI (most never do), once.
type templateMatchers struct {
	once sync.Once
	list []templateMatcher
}

type templateMatcher struct {
	doc int
	// literal is the template's text before its first variable: a URI
	// that does not start with it cannot match, and costs no match run.
	literal string
	t       *uritemplates.Template
}

// pastedURIs returns the chunks of the query that are URIs (scheme://...),
// without the quotes, brackets or sentence punctuation an agent may have
// pasted around them.
func pastedURIs(query string) []string {
	var out []string
	for _, chunk := range queryChunks(query) {
		uri := strings.TrimLeft(chunk, "\"'`<([{")
		uri = strings.TrimRight(uri, "\"'`>)]},;.:!?")
		if i := strings.Index(uri, "://"); i > 0 && len(uri) > i+3 {
			out = append(out, uri)
			if len(out) == maxPastedURIs {
				break
			}
		}
	}
	return out
}

// markPastedURIs puts in tierURI every resource whose URI the query pastes
// and every template a pasted URI is an expansion of (RFC 6570): the agent
// that pastes demo://resource/dynamic/text/5 wants that resource, read
// through its template, whatever words it shares with the tools.
func (ix *Index) markPastedURIs(query string, tiers []int8) {
	uris := pastedURIs(query)
	if len(uris) == 0 {
		return
	}
	for _, uri := range uris {
		for _, d := range ix.names[normalizeName(uri)] {
			if ix.docs[d].Kind == KindResource && ix.docs[d].URI == uri {
				tiers[d] = max(tiers[d], tierURI)
			}
		}
		for _, m := range ix.templateMatchers() {
			if !strings.HasPrefix(uri, m.literal) {
				continue
			}
			if _, ok := m.t.Match(uri); ok {
				tiers[m.doc] = max(tiers[m.doc], tierURI)
			}
		}
	}
}

// templateMatchers returns the templates that a pasted URI can match:
// those whose scheme is written out. A template that starts with a
// variable ("{+uri}", "{scheme}://{+rest}") would match every URI and say
// nothing about any.
func (ix *Index) templateMatchers() []templateMatcher {
	ix.templates.once.Do(func() {
		for i, d := range ix.docs {
			if d.Kind != KindTemplate {
				continue
			}
			literal, _, _ := strings.Cut(d.URI, "{")
			if i := strings.Index(literal, "://"); i <= 0 {
				continue
			}
			t, err := uritemplates.Parse(d.URI)
			if err != nil {
				continue // not RFC 6570: searched by its words only
			}
			ix.templates.list = append(ix.templates.list, templateMatcher{doc: i, literal: literal, t: t})
		}
	})
	return ix.templates.list
}
