package keychain

const backendName = "macOS login keychain"

func reachable() error { return nil }

// fits reports whether the macOS keychain takes secret (see
// MacKeychainMaxLine).
func fits(service, account, secret string) bool {
	return macSetLineLen(service, account, secret) <= MacKeychainMaxLine
}
