package toolsearch

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// concept is one thing the query asks for: a content word, or several
// words of the query that are related to each other ("make a new ...",
// "latitude and longitude"), with the index terms that stand for it. A tool
// scores the best of the variants, so a word with many related terms counts
// no more than a word with none, and saying a thing twice counts once.
type concept struct {
	labels   []string // the query words, lowercased, reported in Hit.Matched
	variants []variant
	// idfCap bounds the idf of every variant by that of the word itself, so
	// that a related or misspelt term is never worth more than the word the
	// agent used; +Inf when the word itself is not in the index.
	idfCap float64
	// name marks a proper name ("Boston", "Alice"): matched as written,
	// never expanded, merged or corrected.
	name bool
	// literal marks a word of a value the agent pasted or named (a URI,
	// path or file name, the word after "named"): matched as written like
	// a name, and evidence only: a tool is not asked to match it (it does
	// not count in coordination), since the value is the task's data, not
	// its words.
	literal bool
	// modifier marks a word that qualifies the object rather than naming
	// it: the words after "between", "of", "from" ("delete a relation
	// between entities" is about a relation). It weighs model.modifier.
	modifier bool
}

type variant struct {
	term   string
	weight float64
}

// parseQuery turns a query into concepts: one per content word (stop words
// and bare numbers dropped, abbreviations expanded, related words merged),
// plus one for the whole of any multi-word identifier the query contains
// ("kubectl_logs").
func (ix *Index) parseQuery(query string) []concept {
	concepts := ix.words(query, true)
	if len(concepts) == 0 {
		// A query of stop words only ("who", "this") still searches.
		concepts = ix.words(query, false)
	}
	concepts = ix.joinPhrases(query, concepts)
	if len(concepts) > maxConcepts {
		concepts = concepts[:maxConcepts]
	}
	for i := range concepts {
		ix.expand(&concepts[i])
	}
	return concepts
}

// joinPhrases adds, for two neighbouring query words that the index knows
// as one word ("wrap up" → wrapup, "starts up" → startup, "data base" →
// database), that word as a variant of the first word's concept, or as a
// concept of its own when the first word is a stop word.
func (ix *Index) joinPhrases(query string, concepts []concept) []concept {
	var words []string
	for _, chunk := range queryChunks(query) {
		if literalWord(chunk) == "" {
			words = append(words, splitIdent(chunk)...)
		}
	}
	for i := 0; i+1 < len(words) && i < maxConcepts; i++ {
		a, b := words[i], words[i+1]
		if isNumber(a) || isNumber(b) {
			continue
		}
		joined := ""
		for _, cand := range []string{stem(a + b), stem(a) + b} {
			if ix.known(cand) && !strings.Contains(cand, "_") {
				joined = cand
				break
			}
		}
		if joined == "" {
			continue
		}
		first := stem(a)
		placed := false
		for k := range concepts {
			if !concepts[k].name && concepts[k].variants[0].term == first {
				concepts[k].variants = append(concepts[k].variants, variant{joined, 1})
				placed = true
				break
			}
		}
		if !placed {
			concepts = append(concepts, concept{labels: []string{a + " " + b}, variants: []variant{{joined, 1}}})
		}
	}
	return concepts
}

// literalWord stands for a chunk of the query that is a value rather than
// words: a URL, a glob pattern, a file path or a file name. The agent
// pastes the value; the tool describes the kind of value it takes.
func literalWord(chunk string) string {
	switch {
	case isFileName(chunk):
		return "file"
	case strings.Contains(chunk, "://"), strings.HasPrefix(strings.ToLower(chunk), "www."):
		return "url"
	case strings.ContainsAny(chunk, "*?") && len(strings.Trim(chunk, "*?")) > 0 && !strings.HasSuffix(chunk, "?"):
		return "pattern"
	case strings.HasPrefix(chunk, "/"), strings.HasPrefix(chunk, "./"), strings.HasPrefix(chunk, "~/"),
		strings.Count(chunk, "/") >= 2:
		return "path"
	case len(chunk) > 1 && chunk[0] == '#' && !isNumber(chunk[1:]):
		return "channel"
	case len(chunk) > 1 && chunk[0] == '@':
		return "user"
	}
	return ""
}

// isFileName reports whether chunk is a file name: a name, a dot and an
// extension files are known by ("notes.md", "report.pdf"), perhaps with
// the punctuation of the sentence around it.
func isFileName(chunk string) bool {
	chunk = strings.Trim(chunk, "\"'`()[],;:!?")
	chunk = strings.TrimRight(chunk, ".")
	dot := strings.LastIndexByte(chunk, '.')
	if dot <= 0 || strings.ContainsAny(chunk, "/\\") {
		return false
	}
	return fileExtensions[strings.ToLower(chunk[dot+1:])] != "" && strings.IndexFunc(chunk[:dot], unicode.IsLetter) >= 0
}

// fileKind is what a file named in the query holds, by its extension
// ("text" for notes.md), or "".
func fileKind(chunk string) string {
	if !isFileName(chunk) {
		return ""
	}
	chunk = strings.TrimRight(strings.Trim(chunk, "\"'`()[],;:!?"), ".")
	return fileExtensions[strings.ToLower(chunk[strings.LastIndexByte(chunk, '.')+1:])]
}

func (ix *Index) words(query string, dropStop bool) []concept {
	var out []concept
	add := func(label string, name bool, vs ...variant) {
		primary := vs[0].term
		for i := range out {
			c := &out[i]
			p := c.variants[0].term
			if p == primary || (!name && !c.name && !strings.Contains(p, "_") && isRelated(p, primary)) {
				// Saying the same thing twice (or in two words) counts once.
				if !contains(c.labels, label) {
					c.labels = append(c.labels, label)
				}
				for _, v := range vs {
					if !hasVariant(c.variants, v.term) {
						c.variants = append(c.variants, v)
					}
				}
				return
			}
		}
		out = append(out, concept{labels: []string{label}, variants: vs, name: name})
	}
	addLiteral := func(w string) {
		if isNumber(w) || stopWords[w] || genericValueWords[w] {
			return
		}
		t := stem(w)
		for _, c := range out {
			if c.variants[0].term == t {
				return
			}
		}
		out = append(out, concept{labels: []string{w}, variants: []variant{{t, ix.m.literal}}, name: true, literal: true})
	}
	chunks := queryChunks(query)
	modifying := false
	for i, chunk := range chunks {
		lower := strings.ToLower(chunk)
		switch {
		case modifierPrepositions[lower]:
			modifying = true
		case determiners[lower]:
		case stopWords[lower]:
			modifying = false
		}
		first := len(out)
		if w := literalWord(chunk); w != "" {
			vs := []variant{{stem(w), 1}}
			kind := fileKind(chunk)
			if base := chunk[strings.LastIndexByte(chunk, '/')+1:]; w == "path" && isFileName(base) {
				// /tmp/q3.txt is a path and a file.
				vs = append(vs, variant{stem("file"), 1})
				kind = fileKind(base)
			}
			add(strings.ToLower(chunk), false, vs...)
			for _, lw := range splitIdent(chunk) {
				addLiteral(lw)
			}
			if kind != "" {
				addLiteral(kind)
			}
			continue
		}
		if i > 0 && namingWords[strings.ToLower(chunks[i-1])] {
			// "a folder called backups": backups is the name given.
			for _, lw := range splitIdent(chunk) {
				addLiteral(lw)
			}
			continue
		}
		if answer, ok := questionWords[strings.ToLower(chunk)]; ok && dropStop &&
			i+1 < len(chunks) && auxiliaries[strings.ToLower(chunks[i+1])] {
			// "when was it modified" asks for a time; "what happens when
			// it starts" does not.
			var vs []variant
			for _, a := range answer {
				vs = append(vs, variant{stem(a), 1})
			}
			add(strings.ToLower(chunk), false, vs...)
			continue
		}
		if i+1 < len(chunks) {
			if meant, ok := phrasalVerbs[strings.ToLower(chunk)+" "+strings.ToLower(chunks[i+1])]; ok {
				// "look at" is to view, "look for" to search.
				add(strings.ToLower(chunk), false, variant{stem(meant), 1})
				continue
			}
		}
		words := splitIdent(chunk)
		if len(words) > 1 {
			if t := compound(words); ix.known(t) {
				add(strings.ToLower(chunk), false, variant{t, 1})
			}
		}
		name := i > 0 && len(words) == 1 && isTitleCase(chunk)
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
					add(w, false, vs...)
				}
				continue
			}
			add(w, name, variant{stem(w), 1})
		}
		if modifying {
			for k := first; k < len(out); k++ {
				out[k].modifier = true
			}
		}
	}
	return out
}

// queryChunks are the query's whitespace-separated chunks, at most
// maxQueryChunks of them: no task is stated in more words, and every word
// costs a pass over the concepts so far.
func queryChunks(query string) []string {
	chunks := strings.Fields(query)
	return chunks[:min(len(chunks), maxQueryChunks)]
}

func hasVariant(vs []variant, term string) bool {
	for _, v := range vs {
		if v.term == term {
			return true
		}
	}
	return false
}

// isTitleCase reports whether the letters of s are one capital followed by
// lower-case letters: inside a query, a proper name.
func isTitleCase(s string) bool {
	upper, lower := 0, 0
	for i, r := range s {
		switch {
		case unicode.IsUpper(r) && i == firstLetter(s):
			upper++
		case unicode.IsUpper(r):
			return false
		case unicode.IsLower(r):
			lower++
		}
	}
	return upper == 1 && lower > 0
}

func firstLetter(s string) int {
	return strings.IndexFunc(s, unicode.IsLetter)
}

func isRelated(a, b string) bool {
	for _, r := range relatedTo(a) {
		if r == b {
			return true
		}
	}
	return false
}

// expand adds related terms, prefix completions and typo corrections of the
// concept's own words.
func (ix *Index) expand(c *concept) {
	own := make([]string, 0, len(c.variants))
	weights := map[string]float64{}
	c.idfCap = math.Inf(1)
	capped := false
	for _, v := range c.variants {
		own = append(own, v.term)
		weights[v.term] = v.weight
		if idf, ok := ix.idf(v.term); ok && (!capped || idf > c.idfCap) {
			c.idfCap, capped = idf, true
		}
	}
	if c.name {
		if !c.literal {
			// A proper name is a value too: "what do you know about
			// Alice" wants a tool that finds things by name.
			c.variants = append(c.variants, variant{stem("name"), ix.m.literal})
		}
		return
	}
	offer := func(t string, w float64) {
		if weights[t] < w {
			weights[t] = w
		}
	}
	for _, t := range own {
		if strings.Contains(t, "_") {
			continue
		}
		for _, r := range relatedTo(t) {
			offer(r, ix.m.related)
		}
		if len(t) < minAffixLen {
			continue
		}
		for i, k := sort.SearchStrings(ix.vocab, t), 0; i < len(ix.vocab) && k < maxPrefixExpansions; i++ {
			v := ix.vocab[i]
			if !strings.HasPrefix(v, t) {
				break
			}
			if v != t {
				offer(v, ix.m.prefix)
				k++
			}
		}
	}
	if !ix.knowsAny(weights) {
		// No word of the concept nor any relative is in the index:
		// probably a typo.
		for _, t := range own {
			if len(t) >= minTypoLen && !strings.Contains(t, "_") {
				for _, v := range ix.nearTerms(t) {
					offer(v, ix.m.fuzzy)
				}
			}
		}
	}
	vs := c.variants[:0:0]
	for _, t := range sortedKeys(weights) {
		vs = append(vs, variant{t, weights[t]})
	}
	c.variants = vs
}

// knowsAny reports whether any of the terms is in the index.
func (ix *Index) knowsAny(terms map[string]float64) bool {
	for t := range terms {
		if ix.known(t) {
			return true
		}
	}
	return false
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
		if d := len(v) - len(t); d > maxDist || -d > maxDist || len(v) < minTypoLen {
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

// opposedTerms returns the verbs of opposite intent to the query's own
// words, less any term the query reaches itself ("remove the stale entry and
// add a new one" opposes neither).
func opposedTerms(concepts []concept) map[string]bool {
	var out map[string]bool
	for _, c := range concepts {
		if c.name {
			continue
		}
		for _, l := range c.labels {
			for _, o := range oppositeTo(stem(l)) {
				if out == nil {
					out = map[string]bool{}
				}
				out[o] = true
			}
		}
	}
	for _, c := range concepts {
		for _, v := range c.variants {
			if v.weight >= 1 {
				delete(out, v.term)
			}
		}
	}
	return out
}

// askedConcepts is the bit set of the concepts a tool is asked to match
// (coordination): all but the words of pasted values, unless the query is
// nothing but a value.
func askedConcepts(concepts []concept) uint64 {
	var asked, all uint64
	for i, c := range concepts {
		all |= 1 << uint(i)
		if !c.literal {
			asked |= 1 << uint(i)
		}
	}
	if asked == 0 {
		return all
	}
	return asked
}
