package uritemplate

import "testing"

// The changes third_party/README.md lists: UTF-8 bytes, NUL, triplets in
// reserved expansion, U+FFFD, prefixes in characters.
func TestExpand_UTF8(t *testing.T) {
	for _, c := range []struct{ tmpl, value, want string }{
		{"{x}", "é", "%C3%A9"},
		{"{x}", "Ā😀", "%C4%80%F0%9F%98%80"},
		{"{x}", "a\x00b", "a%00b"},
		{"{x}", "\ufffd", "%EF%BF%BD"},
		{"{x}", "a%41", "a%2541"},
		{"{+x}", "a%41/ü%", "a%41/%C3%BC%25"},
		{"{#x}", "%4", "#%254"},
		{"{x:2}", "éèê", "%C3%A9%C3%A8"},
		{"{?x}", "ß", "?x=%C3%9F"},
	} {
		vals := Values{}
		vals.Set("x", String(c.value))
		got, err := MustNew(c.tmpl).Expand(vals)
		if err != nil || got != c.want {
			t.Errorf("%s with %q = %q, %v; want %q", c.tmpl, c.value, got, err, c.want)
		}
		if m := MustNew(c.tmpl).Match(c.want); c.tmpl == "{x}" && (m == nil || m.Get("x").String() != c.value) {
			t.Errorf("%s does not match %q back to %q: %v", c.tmpl, c.want, c.value, m)
		}
	}
}
