package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitIdent splits text into lowercase words: on every character that is
// not a letter or digit (so snake_case, kebab-case, dotted.names and
// slash/names split), and inside camelCase and PascalCase words
// ("getURLForPage" -> get, url, for, page). Letters and digits stay together
// ("base64", "ec2").
func splitIdent(s string) []string {
	var words []string
	start := -1 // byte offset of the current word, -1 outside a word
	var prev rune
	prevAt := 0 // byte offset of prev
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(s[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush(i)
		case start < 0:
			start = i
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			// camelCase, v2Name: boundary before the upper-case letter.
			flush(i)
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && prevAt > start:
			// "URLFor": the last upper-case letter starts the next word.
			flush(prevAt)
			start = prevAt
		}
		prev, prevAt = r, i
		i += size
	}
	flush(len(s))
	return words
}

// normalizeName is the form used for exact-name matching: the words of s
// joined by single spaces, nothing dropped or stemmed. "browser_take_screenshot",
// "browserTakeScreenshot" and "browser take screenshot" all normalize alike.
func normalizeName(s string) string {
	return strings.Join(splitIdent(s), " ")
}

// compound is the whole-name term of a multi-word identifier: its words
// joined by '_'. Single-word terms never contain '_', so the two kinds of
// term cannot collide.
func compound(words []string) string {
	return strings.Join(words, "_")
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// stopWords are dropped from queries and documents: function words and the
// filler agents put around a task ("please", "I want to", "can you").
var stopWords = setOf(
	"a", "an", "the", "to", "of", "in", "on", "at", "for", "with", "by", "from",
	"into", "onto", "about", "as", "and", "or", "but", "if", "then", "than", "so",
	"is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did",
	"it", "its", "this", "that", "these", "those", "there", "here",
	"i", "me", "my", "mine", "we", "us", "our", "you", "your", "yours", "he", "she",
	"they", "them", "their", "his", "her",
	"please", "want", "wants", "need", "needs", "would", "like", "could", "can",
	"should", "will", "shall", "may", "might", "must", "let", "lets", "just",
	"some", "any", "via", "using", "use", "tool", "tools", "also", "e", "g", "eg",
	"ie", "etc", "what", "which", "who", "whom", "whose", "when", "where", "how",
	"why", "up", "out", "over", "very", "really", "currently", "specific",
	"whether", "not", "no", "yes", "only", "own", "such", "each",
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// irregular maps irregular inflections (and a few spelling variants) to
// their base word, which is then stemmed as usual. A word mapped to itself
// is kept as it is: the suffix rules would break it or merge it with another
// word ("news" is not "new").
var irregular = map[string]string{
	"sent": "send", "ran": "run", "made": "make", "found": "find",
	"wrote": "write", "written": "write", "took": "take", "taken": "take",
	"got": "get", "gotten": "get", "gave": "give", "given": "give",
	"shown": "show", "went": "go", "gone": "go",
	"saw": "see", "seen": "see", "began": "begin", "begun": "begin",
	"chose": "choose", "chosen": "choose", "knew": "know", "known": "know",
	"kept": "keep", "built": "build", "drew": "draw",
	"drawn": "draw", "using": "use", "children": "child", "people": "person",
	"canceled": "cancel", "cancelled": "cancel", "modified": "modify",
	"copies": "copy",
	"news":   "news", "series": "series", "always": "always", "does": "does",
}

// stem reduces an English word to an approximate stem with a light suffix
// stripper: plurals (files, queries, searches), -ing, -ed, -ion and a final
// -e, so that create/creates/creating/created/creation all meet at "creat"
// and list/lists/listing/listed at "list". It is not Porter: it only needs
// to map a word and its inflections to the same key, not to a real word.
func stem(w string) string {
	if base, ok := irregular[w]; ok {
		if base == w {
			return w
		}
		w = base
	}
	if utf8.RuneCountInString(w) <= 3 || !isASCIIWord(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"),
		strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "xes"),
		strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		// class, status, analysis: not plurals.
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w)-3 >= 3:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w)-2 >= 3:
		w = undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "ion") && len(w)-3 >= 4:
		w = w[:len(w)-3]
	}
	if strings.HasSuffix(w, "e") && len(w) >= 4 {
		w = w[:len(w)-1]
	}
	return w
}

// undouble turns "runn" (from running) into "run" and "stopp" into "stop",
// but keeps ll, ss and zz (pull, pass, buzz) and words too short to lose a
// letter (add).
func undouble(w string) string {
	n := len(w)
	if n < 4 {
		return w
	}
	c := w[n-1]
	if c == w[n-2] && c != 'l' && c != 's' && c != 'z' && !isVowel(c) {
		return w[:n-1]
	}
	return w
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	}
	return false
}

func isASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// terms turns free text into index terms: split, drop stop words and bare
// numbers, stem.
func terms(text string) []string { return analyzer{}.terms(text) }
