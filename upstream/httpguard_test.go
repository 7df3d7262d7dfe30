package upstream

import (
	"strings"
	"testing"
)

// TestHostRule_Checks: which Host and Origin headers each kind of listen
// address accepts.
func TestHostRule_Checks(t *testing.T) {
	tests := []struct {
		listen string
		allow  []string
		header string // "Host: X" or "Origin: X"
		ok     bool
	}{
		{"127.0.0.1:8931", nil, "Host: 127.0.0.1:8931", true},
		{"127.0.0.1:8931", nil, "Host: localhost:8931", true},
		{"127.0.0.1:8931", nil, "Host: localhost:9999", false},
		{"127.0.0.1:8931", nil, "Host: evil.example:8931", false},
		{"127.0.0.1:8931", nil, "Origin: http://localhost:8931", true},
		// A browser leaves out the scheme's default port: these are 80 and 443.
		{"127.0.0.1:8931", nil, "Origin: http://localhost", false},
		{"127.0.0.1:8931", nil, "Origin: http://127.0.0.1", false},
		{"127.0.0.1:8931", nil, "Origin: https://localhost", false},
		{"127.0.0.1:80", nil, "Origin: http://localhost", true},
		{"127.0.0.1:443", nil, "Origin: https://localhost", true},
		{"127.0.0.1:8931", nil, "Origin: null", false},
		{"127.0.0.1:8931", []string{"box.lan"}, "Host: box.lan:8931", true},
		// On all addresses: IP addresses and allowed names, not any name.
		{"0.0.0.0:8931", nil, "Host: 192.0.2.7:8931", true},
		{"0.0.0.0:8931", nil, "Host: [2001:db8::1]:8931", true},
		{"0.0.0.0:8931", nil, "Host: evil.example:8931", false},
		{"0.0.0.0:8931", nil, "Host: box.lan:8931", false},
		{"0.0.0.0:8931", []string{"Box.lan"}, "Host: box.lan:8931", true},
		{"0.0.0.0:8931", []string{"box.lan"}, "Origin: http://box.lan:8931", true},
		{"0.0.0.0:8931", []string{"box.lan"}, "Origin: http://box.lan", false},
		{"0.0.0.0:8931", nil, "Origin: http://evil.example:8931", false},
		{"0.0.0.0:8931", nil, "Origin: http://192.0.2.7", false},
		{"[::]:8931", nil, "Host: 192.0.2.7:8931", true},
		{"192.0.2.7:8931", nil, "Host: 192.0.2.7:8931", true},
		{"192.0.2.7:8931", nil, "Host: 192.0.2.8:8931", false},
		{"unix:/run/d/sock", nil, "Host: anything", true},
		{"unix:/run/d/sock", nil, "Origin: http://localhost", true},
		{"unix:/run/d/sock", nil, "Origin: http://evil.example", false},
	}
	for _, tt := range tests {
		t.Run(tt.listen+" "+strings.Join(tt.allow, ",")+" "+tt.header, func(t *testing.T) {
			rule, err := newHostRule(tt.listen, tt.allow)
			if err != nil {
				t.Fatal(err)
			}
			kind, value, _ := strings.Cut(tt.header, ": ")
			why := rule.checkHost(value)
			if kind == "Origin" {
				why = rule.checkOrigin(value)
			}
			if (why == "") != tt.ok {
				t.Errorf("accepted %v (%q), want %v", why == "", why, tt.ok)
			}
		})
	}
}

// TestHostRule_HintNamesAllowHost: a refused host name says how to accept
// it; an address cannot be allowed, so it gets no such hint.
func TestHostRule_HintNamesAllowHost(t *testing.T) {
	rule, err := newHostRule("0.0.0.0:8931", nil)
	if err != nil {
		t.Fatal(err)
	}
	if why := rule.checkHost("box.lan:8931"); !strings.Contains(why, "--allow-host box.lan") {
		t.Errorf("refusal %q does not name --allow-host box.lan", why)
	}
	if why := rule.checkHost("127.0.0.1:1"); strings.Contains(why, "--allow-host") {
		t.Errorf("refusal %q suggests allowing an address", why)
	}
}
