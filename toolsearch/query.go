package toolsearch

import (
	"sort"
	"strings"
)

// concept is one word of the query with the index terms that stand for it.
// A tool scores the best of the variants, so a word with many related
// terms counts no more than a word with none.
type concept struct {
	label    string // the query word, lowercased, reported in Hit.Matched
	variants []variant
}

type variant struct {
	term   string
	weight float64
}

// parseQuery turns a query into concepts: one per content word (stop words
// and bare numbers dropped, abbreviations expanded), plus one for the whole
// of any multi-word identifier the query contains ("kubectl_logs").
func (ix *Index) parseQuery(query string) []concept {
	concepts := ix.words(query, true)
	if len(concepts) == 0 {
		// A query of stop words only ("who", "this") still searches.
		concepts = ix.words(query, false)
	}
	if len(concepts) > maxConcepts {
		concepts = concepts[:maxConcepts]
	}
	for i := range concepts {
		ix.expand(&concepts[i])
	}
	return concepts
}

func (ix *Index) words(query string, dropStop bool) []concept {
	var out []concept
	seen := map[string]bool{}
	add := func(label string, vs ...variant) {
		if seen[vs[0].term] {
			return
		}
		seen[vs[0].term] = true
		out = append(out, concept{label: label, variants: vs})
	}
	for _, chunk := range strings.Fields(query) {
		words := splitIdent(chunk)
		if len(words) > 1 {
			if t := compound(words); len(ix.postings[t]) > 0 {
				add(strings.ToLower(chunk), variant{t, 1})
			}
		}
		for _, w := range words {
			if isNumber(w) || (dropStop && stopWords[w]) {
				continue
			}
			if full, ok := abbreviations[w]; ok {
				for i, fw := range full {
					vs := []variant{{stem(fw), 1}}
					if i == 0 {
						vs = append(vs, variant{stem(w), 1})
					}
					add(w, vs...)
				}
				continue
			}
			add(w, variant{stem(w), 1})
		}
	}
	return out
}

// expand adds related terms, prefix completions and typo corrections of the
// concept's primary term.
func (ix *Index) expand(c *concept) {
	primary := c.variants[0].term
	if strings.Contains(primary, "_") {
		return
	}
	weights := map[string]float64{}
	for _, v := range c.variants {
		weights[v.term] = v.weight
	}
	offer := func(t string, w float64) {
		if weights[t] < w {
			weights[t] = w
		}
	}
	for _, v := range c.variants {
		for _, r := range related[v.term] {
			offer(r, relatedWeight)
		}
	}
	if len(primary) >= minAffixLen {
		for i, k := sort.SearchStrings(ix.vocab, primary), 0; i < len(ix.vocab) && k < maxPrefixExpansions; i++ {
			t := ix.vocab[i]
			if !strings.HasPrefix(t, primary) {
				break
			}
			if t != primary {
				offer(t, prefixWeight)
				k++
			}
		}
		if len(ix.postings[primary]) == 0 {
			for _, t := range ix.nearTerms(primary) {
				offer(t, fuzzyWeight)
			}
		}
	}
	vs := c.variants[:0:0]
	for _, t := range sortedKeys(weights) {
		vs = append(vs, variant{t, weights[t]})
	}
	c.variants = vs
}

// nearTerms returns the vocabulary terms within a small edit distance of t
// (one edit up to 7 letters, two beyond), counting a swap of adjacent letters
// as one edit.
func (ix *Index) nearTerms(t string) []string {
	maxDist := 1
	if len(t) >= 8 {
		maxDist = 2
	}
	var out []string
	for _, v := range ix.vocab {
		if d := len(v) - len(t); d > maxDist || -d > maxDist || len(v) < minAffixLen {
			continue
		}
		if editDistance(t, v, maxDist) <= maxDist {
			out = append(out, v)
		}
	}
	return out
}

// editDistance is the optimal-string-alignment distance between a and b
// (bytes), or max+1 once it is known to exceed max.
func editDistance(a, b string, max int) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
