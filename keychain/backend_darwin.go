package keychain

const backendName = "macOS login keychain"

func reachable() error { return nil }
