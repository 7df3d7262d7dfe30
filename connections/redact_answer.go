package connections

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// answerForms are the forms a JSON encoder writes secret in, inside a
// JSON string, without the quotes: as is where nothing needs escaping;
// escaped, with and without the HTML escaping of <, > and & (Go's
// encoder escapes them as \u003c..., JavaScript's does not); and with /
// written \/ (PHP's encoder does). Only the user's own values: a server
// answer may legitimately carry a new key or a JWT, so token shapes are
// left alone here (maskShapes is for server text dispatch shows).
func answerForms(secret string) [][]byte {
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	if enc.Encode(secret) != nil {
		return nil
	}
	html, err := json.Marshal(secret)
	if err != nil {
		return nil
	}
	// Both are a quoted string: the encoder's ends with a newline.
	unquote := func(b []byte) string { b = bytes.TrimSuffix(b, []byte("\n")); return string(b[1 : len(b)-1]) }
	var forms []string
	for _, f := range []string{unquote(plain.Bytes()), unquote(html)} {
		forms = append(forms, f)
		if strings.Contains(f, "/") {
			forms = append(forms, strings.ReplaceAll(f, "/", `\/`))
		}
	}
	var out [][]byte
	seen := map[string]bool{}
	for _, f := range forms {
		if !seen[f] {
			seen[f] = true
			out = append(out, []byte(f))
		}
	}
	return out
}

// sortForms puts longer forms first: where two match at one place, the
// longer one (a secret holding another) is masked whole.
func sortForms(forms [][]byte) {
	sort.Slice(forms, func(i, j int) bool {
		if len(forms[i]) != len(forms[j]) {
			return len(forms[i]) > len(forms[j])
		}
		return bytes.Compare(forms[i], forms[j]) < 0
	})
}

// answerGroup is one secret's forms and the longest run of bytes they
// all share (the secret's longest run that no encoder escapes): where
// that run is absent, so is every form, and one bytes.Index rules the
// secret out.
type answerGroup struct {
	key    []byte // empty: the secret has no such run, look for each form
	anchor int    // the index of key's rarest byte (see indexAnchored)
	forms  [][]byte
}

// commonBytes ranks the bytes most frequent in JSON answers and text,
// most frequent first; any other byte is rarer than all of them.
const commonBytes = ` "etaoinsrhldcumfpgwybv,.:{}0123456789k-_/\x`

// rarestByte is the index of the byte of key that commonBytes ranks
// rarest.
func rarestByte(key []byte) int {
	best, bestRank := 0, -1
	for i, c := range key {
		rank := strings.IndexByte(commonBytes, c)
		if rank < 0 {
			return i
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// indexAnchored is bytes.Index(data, key) for a key whose byte at
// anchor is rare: it looks for that byte with IndexByte, which runs far
// faster than bytes.Index when key's first byte is common (bytes.Index
// looks for the first), and checks key around it. After too many
// false starts it leaves the rest to bytes.Index.
func indexAnchored(data, key []byte, anchor int) int {
	c := key[anchor]
	for from, misses := anchor, 0; from < len(data); {
		i := bytes.IndexByte(data[from:], c)
		if i < 0 {
			return -1
		}
		start := from + i - anchor
		if start+len(key) > len(data) {
			return -1
		}
		if bytes.Equal(data[start:start+len(key)], key) {
			return start
		}
		from += i + 1
		if misses++; misses > 8+from>>8 {
			if j := bytes.Index(data[start+1:], key); j >= 0 {
				return start + 1 + j
			}
			return -1
		}
	}
	return -1
}

// answerGroupOf groups the forms of secret under their shared run.
func answerGroupOf(secret string) answerGroup {
	plain := func(c byte) bool {
		return c >= 0x20 && c < 0x7f && !strings.ContainsRune(`"\/<>&`, rune(c))
	}
	var key string
	for i := 0; i < len(secret); {
		if !plain(secret[i]) {
			i++
			continue
		}
		j := i
		for j < len(secret) && plain(secret[j]) {
			j++
		}
		if j-i > len(key) {
			key = secret[i:j]
		}
		i = j
	}
	g := answerGroup{key: []byte(key), forms: answerForms(secret)}
	if len(key) > 0 {
		g.anchor = rarestByte(g.key)
	}
	return g
}

// MaskAnswer replaces, in data (the JSON a server answered with), every
// occurrence of a known secret's exact value inside a JSON string by
// Mask, and returns data shortened to what is left. It works in place,
// on data's own bytes: the mask is never longer than what it replaces,
// so an answer of any size (an off-heap block of a 100 MB result) is
// neither copied nor grown. Without a secret in data, which is the
// common case, it costs at most one bytes.Index per form of each secret
// (mostly one per secret, see answerGroup) and allocates nothing. A
// match outside a JSON string (a number equal to a numeric secret) or
// starting inside an escape sequence is not masked: the answer stays
// valid JSON.
func (r *Redactor) MaskAnswer(data []byte) []byte {
	if r == nil || len(data) == 0 {
		return data
	}
	r.mu.RLock()
	groups, forms := r.answerGroups, r.answerForms
	r.mu.RUnlock()
	for _, g := range groups {
		if len(g.key) > 0 && indexAnchored(data, g.key, g.anchor) < 0 {
			continue
		}
		for _, f := range g.forms {
			if bytes.Index(data, f) >= 0 {
				return maskForms(data, forms)
			}
		}
	}
	return data
}

// maskForms is MaskAnswer once some form is known to occur in data. It
// walks data once, keeping track of whether it is inside a JSON string
// and of escape sequences, and compacts data in place (w never passes
// the byte being read).
func maskForms(data []byte, forms [][]byte) []byte {
	next := make([]int, len(forms)) // where each form next occurs, from pos; -1: no more
	for i, f := range forms {
		next[i] = bytes.Index(data, f)
	}
	var (
		w, pos    int
		inString  bool
		escLetter bool // the byte at pos is the letter after a backslash
		hexLeft   int  // hex digits of a \uXXXX still to come at pos
	)
	// advance follows the string state over data[pos:to] and copies it
	// down to w. A plain loop: the quotes and backslashes of JSON text
	// come every few bytes, too often for IndexByte to pay.
	advance := func(to int) {
		from := pos
		for ; pos < to; pos++ {
			c := data[pos]
			switch {
			case c != '"' && c != '\\' && !escLetter && hexLeft == 0:
			case escLetter:
				escLetter = false
				if c == 'u' {
					hexLeft = 4
				}
			case hexLeft > 0:
				hexLeft--
			case c == '"':
				inString = !inString
			case inString:
				escLetter = true
			}
		}
		if w != from {
			copy(data[w:], data[from:to])
		}
		w += to - from
	}
	for {
		at, which := -1, -1
		for i, n := range next {
			if n < 0 {
				continue
			}
			if n < pos {
				if n = bytes.Index(data[pos:], forms[i]); n >= 0 {
					n += pos
				}
				next[i] = n
				if n < 0 {
					continue
				}
			}
			// Ties go to the earlier, longer form.
			if at < 0 || n < at {
				at, which = n, i
			}
		}
		if at < 0 {
			advance(len(data))
			return data[:w]
		}
		advance(at)
		if inString && !escLetter && hexLeft == 0 {
			// Every form is a whole run of JSON string content (its
			// quotes and backslashes escaped), so it ends inside the
			// string too, not inside an escape.
			w += copy(data[w:], Mask)
			pos += len(forms[which])
			continue
		}
		advance(at + 1)
	}
}

// MaskAnswerText replaces the exact known credentials in s, text a
// server wrote that is passed on as it is (a progress message, a
// resource's URI): like MaskAnswer, only the user's own credentials, not
// every configured value, nor token shapes.
func (r *Redactor) MaskAnswerText(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	replacer := r.answerReplacer
	r.mu.RUnlock()
	if replacer == nil {
		return s
	}
	return replacer.Replace(s)
}

// maskProgress masks the known credentials in every string of a server's
// progress notification (its message, and any other field or _meta),
// which reaches the agent as the server wrote it.
func (r *Redactor) maskProgress(fields map[string]any) map[string]any {
	for k, v := range fields {
		fields[k] = r.maskStrings(v)
	}
	return fields
}

// maskStrings masks the credentials in every string of v, a value
// decoded from JSON, keys included.
func (r *Redactor) maskStrings(v any) any {
	switch v := v.(type) {
	case string:
		return r.MaskAnswerText(v)
	case []any:
		for i := range v {
			v[i] = r.maskStrings(v[i])
		}
		return v
	case map[string]any:
		masked := make(map[string]any, len(v))
		for k, item := range v {
			masked[r.MaskAnswerText(k)] = r.maskStrings(item)
		}
		return masked
	}
	return v
}
