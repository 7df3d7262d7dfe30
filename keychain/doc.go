// Package keychain keeps secrets in the operating system's keychain: the
// macOS login keychain, the Windows Credential Manager, or a Secret Service
// (gnome-keyring, KWallet) on the D-Bus session bus elsewhere. It imports
// only the standard library and go-keyring, and never logs or prints.
//
// Every call is bounded by a time limit: a keychain can wait forever for a
// person to type a password into a prompt nobody sees, and go-keyring's
// calls cannot be cancelled. Such a call is left to finish on its own, one
// at a time per Keychain, and the calls after it fail at once.
package keychain
