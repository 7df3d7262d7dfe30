//go:build !unix

package connections

import "io/fs"

// checkTokenDir: on Windows the profile directory's ACLs keep others out;
// modes say nothing there.
func checkTokenDir(string) error { return nil }

func checkTokenFile(string, fs.FileInfo) error { return nil }
