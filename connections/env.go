package connections

import (
	"sort"
	"strings"
)

// serverEnv is the environment of a stdio server: by default only the
// variables of dispatch's own environment (environ) that a program needs
// to run — the set the official MCP SDKs pass (their
// getDefaultEnvironment), plus locale, temp-directory and XDG ones — so
// that an agent host's tokens do not reach every server; with inherit,
// all of it. The server's configured env comes last, so it wins.
func serverEnv(environ []string, configured map[string]string, inherit bool) []string {
	var env []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		// A value starting with "()" is an exported shell function, code
		// a shell would run: the SDKs skip those too.
		if inherit || (defaultEnvName(name) && !strings.HasPrefix(value, "()")) {
			env = append(env, kv)
		}
	}
	names := make([]string, 0, len(configured))
	for name := range configured {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		env = append(env, name+"="+configured[name])
	}
	return env
}

// defaultEnvPrefixes are the families of variables every server gets:
// locale and the XDG base directories.
func defaultEnvPrefix(name string) bool {
	return strings.HasPrefix(name, "LC_") || strings.HasPrefix(name, "XDG_")
}
