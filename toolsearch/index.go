package toolsearch

import (
	"math"
	"sort"
	"strings"
)

// field is one part of a tool that is indexed with its own weight.
type field int

const (
	fieldName field = iota
	fieldTitle
	fieldDescription
	fieldParamName
	fieldParamDescription
	fieldAnnotation
	numFields
)

// fieldWeight and fieldB are the BM25F weight and length normalization of
// each field. The name is what an agent is most likely to say; parameter
// text and annotation hints only help to break ties.
var (
	fieldWeight = [numFields]float64{3.0, 1.5, 1.0, 0.6, 0.4, 0.1}
	fieldB      = [numFields]float64{0.5, 0.5, 0.75, 0.75, 0.75, 0}
)

// k1 is the BM25 term-frequency saturation.
const k1 = 1.2

// Weights of the alternative terms a query word is expanded into, relative
// to the word itself (relatedWeight is in related.go).
const (
	prefixWeight = 0.5
	fuzzyWeight  = 0.7
	// maxPrefixExpansions bounds how many vocabulary terms one query word
	// may reach by prefix.
	maxPrefixExpansions = 16
	// minAffixLen is the shortest stem that is expanded by prefix or typo.
	minAffixLen = 4
	// maxConcepts bounds the words of a query that are scored.
	maxConcepts = 64
)

// Match tiers: an exact name match ranks above everything, an exact title
// match above every plain score.
const (
	tierNone = iota
	tierTitle
	tierName
)

type posting struct {
	doc   int32
	score float64 // idf × saturated weighted term frequency
}

// Index is an immutable search index over a fixed list of tools. It is safe
// for concurrent use.
type Index struct {
	docs     []Doc
	postings map[string][]posting
	// vocab holds the single-word terms, sorted, for prefix and typo search.
	vocab []string
	// names and titles map normalizeName of a name or title to its docs.
	names  map[string][]int
	titles map[string][]int
	// rank orders the docs by (connection, name, position) for tie-breaking.
	rank []int
}

// New builds the index for docs. Hits refer to docs by position in this
// slice.
func New(docs []Doc) *Index {
	ix := &Index{
		docs:     docs,
		postings: map[string][]posting{},
		names:    map[string][]int{},
		titles:   map[string][]int{},
	}
	n := len(docs)
	tfs := make([][numFields]map[string]int, n)
	lens := make([][numFields]int, n)
	var total [numFields]int
	df := map[string]int{}
	for i, d := range docs {
		for f, ts := range docFields(d) {
			m := map[string]int{}
			for _, t := range ts {
				m[t]++
			}
			tfs[i][f] = m
			lens[i][f] = len(ts)
			total[f] += len(ts)
		}
		seen := map[string]bool{}
		for f := field(0); f < numFields; f++ {
			for t := range tfs[i][f] {
				if !seen[t] {
					seen[t] = true
					df[t]++
				}
			}
		}
		if key := normalizeName(d.Name); key != "" {
			ix.names[key] = append(ix.names[key], i)
		}
		if key := normalizeName(d.Title); key != "" {
			ix.titles[key] = append(ix.titles[key], i)
		}
	}
	var avg [numFields]float64
	for f := range avg {
		avg[f] = 1
		if n > 0 && total[f] > 0 {
			avg[f] = float64(total[f]) / float64(n)
		}
	}
	for i := range docs {
		terms := map[string]bool{}
		for f := field(0); f < numFields; f++ {
			for t := range tfs[i][f] {
				terms[t] = true
			}
		}
		for _, t := range sortedKeys(terms) {
			var tfw float64
			for f := field(0); f < numFields; f++ {
				tf := tfs[i][f][t]
				if tf == 0 {
					continue
				}
				norm := 1 - fieldB[f] + fieldB[f]*float64(lens[i][f])/avg[f]
				tfw += fieldWeight[f] * float64(tf) / norm
			}
			idf := math.Log(1 + (float64(n)-float64(df[t])+0.5)/(float64(df[t])+0.5))
			ix.postings[t] = append(ix.postings[t], posting{
				doc:   int32(i),
				score: idf * tfw * (k1 + 1) / (tfw + k1),
			})
		}
	}
	for t := range ix.postings {
		if !strings.Contains(t, "_") {
			ix.vocab = append(ix.vocab, t)
		}
	}
	sort.Strings(ix.vocab)
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

// docFields returns the terms of each field of d.
func docFields(d Doc) [numFields][]string {
	var fs [numFields][]string
	fs[fieldName] = terms(d.Name)
	if words := splitIdent(d.Name); len(words) > 1 {
		fs[fieldName] = append(fs[fieldName], compound(words))
	}
	fs[fieldTitle] = terms(d.Title)
	fs[fieldDescription] = terms(d.Description)
	for _, p := range d.Params {
		fs[fieldParamName] = append(fs[fieldParamName], terms(p.Name)...)
		fs[fieldParamDescription] = append(fs[fieldParamDescription], terms(p.Description)...)
	}
	for _, a := range d.Annotations {
		fs[fieldAnnotation] = append(fs[fieldAnnotation], terms(strings.TrimSuffix(a, "Hint"))...)
	}
	return fs
}

// Hit is one search result.
type Hit struct {
	Doc     int     // index into the docs given to New
	Score   float64 // relevance; comparable only within one search
	Matched []string
	// Matched lists the query words that matched the tool, directly or
	// through a stem, related word, prefix or typo, in query order.
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
	query = strings.TrimSpace(query)
	if query == "" || len(ix.docs) == 0 {
		return nil
	}
	concepts := ix.parseQuery(query)
	n := len(ix.docs)
	scores := make([]float64, n)
	matched := make([]uint64, n)
	tiers := make([]int8, n)
	best := make([]float64, n)
	var touched []int32
	for ci, c := range concepts {
		touched = touched[:0]
		for _, v := range c.variants {
			for _, p := range ix.postings[v.term] {
				s := v.weight * p.score
				if best[p.doc] == 0 {
					touched = append(touched, p.doc)
				}
				if s > best[p.doc] {
					best[p.doc] = s
				}
			}
		}
		for _, d := range touched {
			scores[d] += best[d]
			matched[d] |= 1 << uint(ci)
			best[d] = 0
		}
	}
	key := normalizeName(query)
	for _, d := range ix.titles[key] {
		tiers[d] = tierTitle
	}
	for _, d := range ix.names[key] {
		tiers[d] = tierName
	}

	var cand []int
	for d := 0; d < n; d++ {
		if scores[d] > 0 || tiers[d] != tierNone {
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
			if matched[d]&(1<<uint(ci)) != 0 {
				h.Matched = append(h.Matched, c.label)
			}
		}
		hits[i] = h
	}
	return hits
}
