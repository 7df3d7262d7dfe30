//go:build windows

package connections

import "strings"

// defaultEnvName reports whether a stdio server gets variable name from
// dispatch's environment without inheritEnv. Windows names ignore case.
func defaultEnvName(name string) bool {
	upper := strings.ToUpper(name)
	switch upper {
	case "APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE", // the SDKs' set
		"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES",
		"LANG", "TMPDIR":
		return true
	}
	return defaultEnvPrefix(upper)
}
