package toolsearch

import (
	"math"
	"math/bits"
	"sort"
	"strings"
)

// Limits on the work one query can cause.
const (
	// maxPrefixExpansions bounds how many vocabulary terms one query word
	// may reach by prefix.
	maxPrefixExpansions = 16
	// minAffixLen is the shortest stem that is expanded by prefix.
	minAffixLen = 4
	// minTypoLen is the shortest stem that is corrected as a typo: short
	// words are too often another real word one letter away.
	minTypoLen = 5
	// maxConcepts bounds the concepts of a query that are scored.
	maxConcepts = 64
	// maxQueryChunks bounds the whitespace-separated words of a query that
	// are read; the rest is ignored (dispatch refuses a query longer than
	// MaxQueryBytes before it gets here).
	maxQueryChunks = 256
	// leadTerms is how many terms of a description's opening are indexed
	// again as its lead (fieldLead): about two sentences.
	leadTerms = 24
)

// Match tiers: an exact name match ranks above everything, then a resource
// or template a pasted URI names (uri.go), then an exact title match, then
// every plain score.
const (
	tierNone = iota
	tierTitle
	tierURI
	tierName
)

// posting is one tool that contains a term.
//
// tf comes first so that the struct packs into 16 bytes, not 24: an index
// holds one per term of every tool.
type posting struct {
	// tf is the saturated, field-weighted, length-normalized term frequency
	// of BM25F: tf' × (k1+1) / (tf' + k1).
	tf  float64
	doc int32
	// slot is the term's position among the tool's name terms, -1 if the
	// term is not in the name.
	slot int32
}

// termEntry is the inverted list of one term.
type termEntry struct {
	idf   float64
	posts []posting
}

// Index is an immutable search index over a fixed list of tools. It is safe
// for concurrent use.
type Index struct {
	docs []Doc
	// terms are a built index's; a loaded one has saved instead, whose
	// postings are read from the saved bytes as queries need them. Both
	// are reached through lookup, known and idf.
	terms map[string]*termEntry
	saved *savedTerms
	// vocab holds the single-word terms, sorted, for prefix and typo search.
	vocab []string
	// The distinct name terms of doc d are slots slotStart[d] to
	// slotStart[d+1]-1; slotIdf holds each slot's idf and nameIdf[d] their
	// sum, for name coverage.
	slotStart []int32
	slotIdf   []float64
	slotTerm  []string
	nameIdf   []float64
	// names and titles map normalizeName of a name or title to its docs.
	names  map[string][]int
	titles map[string][]int
	// rank orders the docs by (connection, name, position) for tie-breaking.
	rank []int
	// factor is a per-doc score multiplier (deprecated tools rank lower).
	factor []float64
	m      model
	// templates are the resource templates parsed for matching a pasted
	// URI, on first use.
	templates templateMatchers
}

// lookup returns term t's entry, or nil when no doc has t.
func (ix *Index) lookup(t string) *termEntry {
	if ix.saved != nil {
		return ix.saved.lookup(t, ix.slotStart)
	}
	return ix.terms[t]
}

// known reports whether some doc has term t.
func (ix *Index) known(t string) bool {
	_, ok := ix.idf(t)
	return ok
}

// idf returns term t's idf; ok is false when no doc has t.
func (ix *Index) idf(t string) (idf float64, ok bool) {
	if ix.saved != nil {
		i, ok := ix.saved.find(t)
		if !ok {
			return 0, false
		}
		return ix.saved.idf[i], true
	}
	e := ix.terms[t]
	if e == nil {
		return 0, false
	}
	return e.idf, true
}

// New builds the index for docs. Hits refer to docs by position in this
// slice.
func New(docs []Doc) *Index {
	return newIndex(docs, defaultModel)
}

func newIndex(docs []Doc, m model) *Index {
	ix := &Index{
		m:      m,
		docs:   docs,
		terms:  map[string]*termEntry{},
		names:  map[string][]int{},
		titles: map[string][]int{},
	}
	n := len(docs)
	stats := make([]docStats, n)
	var total [numFields]int
	df := map[string]int{}
	// dfText counts only the name, title and description: parameter names
	// ("type", "name", "query", "path") are shared by tools that do quite
	// different things, and should not make a word look common.
	dfText := map[string]int{}
	a := analyzer{stems: map[string]string{}}
	slots := map[string]int{}
	for i, d := range docs {
		st := &stats[i]
		clear(slots)
		for f, ts := range a.fields(d) {
			st.lens[f] = len(ts)
			total[f] += len(ts)
			for _, t := range ts {
				k, ok := slots[t]
				if !ok {
					k = len(st.terms)
					slots[t] = k
					st.terms = append(st.terms, t)
					st.tf = append(st.tf, [numFields]int32{})
				}
				st.tf[k][f]++
				if f == int(fieldName) && !strings.Contains(t, "_") && !contains(st.name, t) {
					st.name = append(st.name, t)
				}
			}
		}
		for k, t := range st.terms {
			df[t]++
			if st.tf[k][fieldName]+st.tf[k][fieldTitle]+st.tf[k][fieldDescription] > 0 {
				dfText[t]++
			}
		}
		if key := normalizeName(d.Name); key != "" {
			ix.names[key] = append(ix.names[key], i)
		}
		if key := normalizeName(d.Title); key != "" {
			ix.titles[key] = append(ix.titles[key], i)
		}
		if key := normalizeName(d.URI); key != "" && d.URI != d.Name {
			// A pasted URI names its resource as surely as a tool's name.
			ix.names[key] = append(ix.names[key], i)
		}
	}
	for _, t := range sortedKeys(df) {
		k := dfText[t]
		if k == 0 {
			k = df[t]
		}
		ix.terms[t] = &termEntry{idf: math.Log(1 + (float64(n)-float64(k)+0.5)/(float64(k)+0.5))}
		if !strings.Contains(t, "_") {
			ix.vocab = append(ix.vocab, t)
		}
	}
	var avg [numFields]float64
	for f := range avg {
		avg[f] = 1
		if n > 0 && total[f] > 0 {
			avg[f] = float64(total[f]) / float64(n)
		}
	}
	ix.slotStart = make([]int32, n+1)
	ix.nameIdf = make([]float64, n)
	ix.factor = make([]float64, n)
	for i, d := range docs {
		ix.factor[i] = 1
		if isDeprecated(d) {
			ix.factor[i] = m.deprecated
		}
		st := &stats[i]
		ix.slotStart[i] = int32(len(ix.slotIdf))
		for _, t := range st.name {
			idf := ix.terms[t].idf
			ix.slotIdf = append(ix.slotIdf, idf)
			ix.slotTerm = append(ix.slotTerm, t)
			ix.nameIdf[i] += idf
		}
		for k, t := range st.terms {
			var tfw float64
			for f := field(0); f < numFields; f++ {
				tf := st.tf[k][f]
				if tf == 0 {
					continue
				}
				norm := 1 - m.fieldB[f] + m.fieldB[f]*float64(st.lens[f])/avg[f]
				tfw += m.fieldWeight[f] * float64(tf) / norm
			}
			slot := int32(-1)
			for j, nt := range st.name {
				if nt == t {
					slot = ix.slotStart[i] + int32(j)
				}
			}
			e := ix.terms[t]
			// Docs are visited in order, so every posting list is sorted
			// by doc.
			e.posts = append(e.posts, posting{doc: int32(i), tf: tfw * (m.k1 + 1) / (tfw + m.k1), slot: slot})
		}
	}
	ix.slotStart[n] = int32(len(ix.slotIdf))
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return lessDoc(docs, order[a], order[b]) })
	ix.rank = make([]int, n)
	for r, i := range order {
		ix.rank[i] = r
	}
	return ix
}

// queryTiers places each doc the query names in its tier: name equal to
// the query, URI pasted in it, title equal to it (tierNone for the rest).
func (ix *Index) queryTiers(query string) []int8 {
	tiers := make([]int8, len(ix.docs))
	key := normalizeName(query)
	for _, d := range ix.titles[key] {
		tiers[d] = tierTitle
	}
	ix.markPastedURIs(query, tiers)
	for _, d := range ix.names[key] {
		tiers[d] = tierName
	}
	return tiers
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// lessDoc is the tie-break order: connection, then name, then position.
func lessDoc(docs []Doc, a, b int) bool {
	if docs[a].Connection != docs[b].Connection {
		return docs[a].Connection < docs[b].Connection
	}
	if docs[a].Name != docs[b].Name {
		return docs[a].Name < docs[b].Name
	}
	return a < b
}

// isDeprecated reports whether a tool says so in its title or at the start
// of its description.
func isDeprecated(d Doc) bool {
	desc := d.Description
	if len(desc) > 200 {
		desc = desc[:200]
	}
	return contains(splitIdent(d.Title), "deprecated") || contains(splitIdent(desc), "deprecated")
}

// docStats is what the build keeps of one doc between its two passes.
type docStats struct {
	terms []string           // distinct terms, in first-seen order
	tf    [][numFields]int32 // per term, its frequency in each field
	lens  [numFields]int     // terms per field
	name  []string           // distinct single-word name terms
}

// analyzer turns text into terms: split, drop stop words and bare numbers,
// stem. With a stems map it remembers stems across calls.
type analyzer struct{ stems map[string]string }

func (a analyzer) terms(text string) []string {
	words := splitIdent(text)
	out := words[:0]
	for _, w := range words {
		if stopWords[w] || isNumber(w) {
			continue
		}
		s, ok := a.stems[w]
		if !ok {
			s = stem(w)
			if a.stems != nil {
				a.stems[w] = s
			}
		}
		out = append(out, s)
	}
	return out
}

// fields returns the terms of each field of d: the name also yields its
// whole-name term.
func (a analyzer) fields(d Doc) [numFields][]string {
	var fs [numFields][]string
	name, ext := indexedName(d)
	fs[fieldName] = a.terms(name)
	if words := splitIdent(name); len(words) > 1 {
		fs[fieldName] = append(fs[fieldName], compound(words))
	}
	if d.Kind != KindTool {
		fs[fieldKind] = a.terms(kindText(d, ext))
	}
	fs[fieldTitle] = a.terms(d.Title)
	fs[fieldDescription] = a.terms(d.Description)
	fs[fieldLead] = fs[fieldDescription][:min(len(fs[fieldDescription]), leadTerms)]
	for _, p := range d.Params {
		fs[fieldParamName] = append(fs[fieldParamName], a.terms(p.Name)...)
		fs[fieldParamDescription] = append(fs[fieldParamDescription], a.terms(p.Description)...)
	}
	for _, h := range d.Annotations {
		fs[fieldAnnotation] = append(fs[fieldAnnotation], a.terms(strings.TrimSuffix(h, "Hint"))...)
	}
	return fs
}

// Hit is one search result.
type Hit struct {
	Doc   int     // index into the docs given to New
	Score float64 // relevance; comparable only within one search
	// Matched lists the query words that matched the tool, directly or
	// through a stem, related word, prefix or typo, in query order.
	Matched []string
	// Missing lists the query words the tool does not match, in query
	// order; words of a pasted or named value are not asked for (see
	// Queries) and never listed. A best hit with words missing may not do
	// what was asked: the catalog may hold no tool for it at all.
	Missing []string
}

// Len reports how many tools the index holds.
func (ix *Index) Len() int { return len(ix.docs) }

// Doc returns the i-th tool given to New.
func (ix *Index) Doc(i int) Doc { return ix.docs[i] }

// Search returns up to limit hits for query, best first (limit <= 0: all
// hits). An empty query has no hits. Tools whose name equals the query
// (compared word by word, so "take screenshot" equals "take_screenshot")
// come first, then tools whose title equals it, then the rest by score;
// ties are broken by connection, then name.
func (ix *Index) Search(query string, limit int) []Hit {
	return ix.search(query, limit, nil)
}

// SearchKinds is Search over the docs of the given kinds only (KindTool,
// KindResource, KindTemplate, KindPrompt); no kinds means every kind. Every
// doc still counts for term rarity, so a hit's score is the same as in
// Search.
func (ix *Index) SearchKinds(query string, limit int, kinds ...string) []Hit {
	if len(kinds) == 0 {
		return ix.search(query, limit, nil)
	}
	return ix.search(query, limit, func(d int) bool { return contains(kinds, ix.docs[d].Kind) })
}

func (ix *Index) search(query string, limit int, keep func(doc int) bool) []Hit {
	query = strings.TrimSpace(query)
	if query == "" || len(ix.docs) == 0 {
		return nil
	}
	concepts := ix.parseQuery(query)
	n := len(ix.docs)
	scores := make([]float64, n)
	matched := make([]uint64, n)
	best := make([]float64, n)
	slotHit := make([]float64, len(ix.slotIdf))
	var touched []int32
	for ci, c := range concepts {
		touched = touched[:0]
		for _, v := range c.variants {
			e := ix.lookup(v.term)
			if e == nil {
				continue
			}
			vw := v.weight
			if c.modifier {
				vw *= ix.m.modifier
			}
			w := vw * min(e.idf, c.idfCap)
			for _, p := range e.posts {
				s := w * p.tf
				if best[p.doc] == 0 {
					touched = append(touched, p.doc)
				}
				if s > best[p.doc] {
					best[p.doc] = s
				}
				if p.slot >= 0 && vw > slotHit[p.slot] {
					slotHit[p.slot] = vw
				}
			}
		}
		for _, d := range touched {
			scores[d] += best[d]
			matched[d] |= 1 << uint(ci)
			best[d] = 0
		}
	}
	// Name coverage: the share of the tool's name (by idf) that the query
	// reaches. A tool name is a verb and an object; a query that reaches
	// both is about that tool, one that reaches a single description word
	// rarely is.
	//
	// Coordination: the share of the query's concepts the tool matches. A
	// tool that matches every part of the task beats one that matches one
	// part very well.
	opposed := opposedTerms(concepts)
	asked := askedConcepts(concepts)

	for d := 0; d < n; d++ {
		if scores[d] == 0 {
			continue
		}
		if len(opposed) > 0 {
			for s := ix.slotStart[d]; s < ix.slotStart[d+1]; s++ {
				if opposed[ix.slotTerm[s]] {
					scores[d] *= ix.m.opposite
					break
				}
			}
		}
		if ix.nameIdf[d] > 0 {
			var cov float64
			for s := ix.slotStart[d]; s < ix.slotStart[d+1]; s++ {
				cov += ix.slotIdf[s] * slotHit[s]
			}
			scores[d] *= 1 + ix.m.nameCoverage*cov/ix.nameIdf[d]
		}
		coord := float64(bits.OnesCount64(matched[d]&asked)) / float64(bits.OnesCount64(asked))
		scores[d] *= (1 - ix.m.coord + ix.m.coord*coord) * ix.factor[d]
	}
	tiers := ix.queryTiers(query)

	var cand []int
	for d := 0; d < n; d++ {
		if (scores[d] > 0 || tiers[d] != tierNone) && (keep == nil || keep(d)) {
			cand = append(cand, d)
		}
	}
	sort.Slice(cand, func(a, b int) bool {
		da, db := cand[a], cand[b]
		if tiers[da] != tiers[db] {
			return tiers[da] > tiers[db]
		}
		if scores[da] != scores[db] {
			return scores[da] > scores[db]
		}
		return ix.rank[da] < ix.rank[db]
	})
	if limit > 0 && len(cand) > limit {
		cand = cand[:limit]
	}
	hits := make([]Hit, len(cand))
	for i, d := range cand {
		h := Hit{Doc: d, Score: scores[d]}
		for ci, c := range concepts {
			switch {
			case matched[d]&(1<<uint(ci)) != 0:
				h.Matched = append(h.Matched, c.labels...)
			case asked&(1<<uint(ci)) != 0:
				h.Missing = append(h.Missing, c.labels...)
			}
		}
		hits[i] = h
	}
	return hits
}
