//go:build !windows

package connections

// defaultEnvName reports whether a stdio server gets variable name from
// dispatch's environment without inheritEnv.
func defaultEnvName(name string) bool {
	switch name {
	case "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", // the SDKs' set
		"LANG", "TMPDIR":
		return true
	}
	return defaultEnvPrefix(name)
}
