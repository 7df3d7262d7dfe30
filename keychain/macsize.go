package keychain

import (
	"encoding/base64"
	"strings"
)

// MacKeychainMaxLine is the longest command go-keyring writes to macOS's
// `security -i` to store an item: the secret goes base64-encoded on that
// one line, so about 2.9 KB of secret fits (less the service's and
// account's length). go-keyring checks it only after starting `security`,
// and then leaves that process behind; dispatch checks first.
const MacKeychainMaxLine = 4096

// macSetLineLen is the length of the line go-keyring v0.2.8 writes to
// store secret for account (keyring_darwin.go, Set).
func macSetLineLen(service, account, secret string) int {
	const prefix = "go-keyring-base64:"
	password := len(prefix) + base64.StdEncoding.EncodedLen(len(secret))
	return len("add-generic-password -U -s  -a  -w \n") + shellQuotedLen(service) + shellQuotedLen(account) + password
}

// shellQuotedLen is the length of s quoted as go-keyring's shellescape
// quotes it: as it is when it holds only [A-Za-z0-9_@%+=:,./-], else in
// single quotes with each ' written '"'"'.
func shellQuotedLen(s string) int {
	if s == "" {
		return 2
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isAlnum(c) || strings.IndexByte("_@%+=:,./-", c) >= 0) {
			return len(s) + 2 + 4*strings.Count(s, "'")
		}
	}
	return len(s)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
