// Package winacl makes a directory private to the current Windows user
// and tells whether one is, where the 0700 mode that does this on Unix
// means nothing: Go reports every Windows directory as 0777 (0555 when
// read-only). It imports only golang.org/x/sys/windows, and has nothing
// on other systems.
package winacl
