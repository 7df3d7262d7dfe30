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

// MaskAnswer replaces, in data (the JSON a server answered with), every
// occurrence of a known secret's exact value inside a JSON string by
// Mask, and returns data shortened to what is left. It works in place,
// on data's own bytes: the mask is never longer than what it replaces,
// so an answer of any size (an off-heap block of a 100 MB result) is
// neither copied nor grown. Without a secret in data, which is the
// common case, it costs one bytes.Index per form of each secret and
// allocates nothing. A match outside a JSON string (a number equal to a
// numeric secret) or starting inside an escape sequence is not masked:
// the answer stays valid JSON.
func (r *Redactor) MaskAnswer(data []byte) []byte {
	if r == nil || len(data) == 0 {
		return data
	}
	r.mu.RLock()
	forms := r.answerForms
	r.mu.RUnlock()
	first := -1
	for i, f := range forms {
		if bytes.Index(data, f) >= 0 {
			first = i
			break
		}
	}
	if first < 0 {
		return data
	}
	return maskForms(data, forms[first:])
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
	// advance copies data[pos:to] down to w, following the string state.
	advance := func(to int) {
		for ; pos < to; pos++ {
			c := data[pos]
			switch {
			case escLetter:
				escLetter = false
				if c == 'u' {
					hexLeft = 4
				}
			case hexLeft > 0:
				hexLeft--
			case inString && c == '\\':
				escLetter = true
			case c == '"':
				inString = !inString
			}
			data[w] = c
			w++
		}
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

// MaskAnswerText replaces the exact known secrets in s, text a server
// wrote that is passed on as it is (a progress message): like
// MaskAnswer, only the user's own values, not token shapes.
func (r *Redactor) MaskAnswerText(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	replacer := r.replacer
	r.mu.RUnlock()
	if replacer == nil {
		return s
	}
	return replacer.Replace(s)
}
