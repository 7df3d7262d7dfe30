package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/alecthomas/kong"
)

// Set at build time by scripts/release.sh:
//
//	-ldflags "-X main.version=1.2.3 -X main.commit=abc1234"
//
// Left empty, they come from the module and VCS information the Go
// toolchain records (go install module@v1.2.3, or a build in a checkout).
var (
	version = ""
	commit  = ""
)

// devVersion names a build that says nothing of its version.
const devVersion = "dev"

// buildVersion is the version dispatch reports, to the user and to servers
// as its client version.
func buildVersion() string {
	bi, _ := debug.ReadBuildInfo()
	v, _ := versionOf(version, commit, bi)
	return v
}

// versionLine is what --version prints: the version, the commit (with
// "-dirty" for a build of modified sources) and the Go toolchain.
func versionLine() string {
	bi, _ := debug.ReadBuildInfo()
	v, c := versionOf(version, commit, bi)
	return fmt.Sprintf("dispatch %s (commit %s, %s %s/%s)", v, c, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// versionFlag is --version. Unlike kong.VersionFlag it does not need the
// line as a kong variable: kong interpolates every variable into every
// flag's help at each start, and reading the build info costs each command
// too, while only --version prints it.
type versionFlag bool

// BeforeReset prints the version line and exits 0, as kong.VersionFlag does.
func (versionFlag) BeforeReset(app *kong.Kong) error {
	fmt.Fprintln(app.Stdout, versionLine())
	app.Exit(0)
	return nil
}

// versionOf picks the version and commit: those set at build time first,
// then the build info's module version and vcs.revision/vcs.modified.
func versionOf(setVersion, setCommit string, bi *debug.BuildInfo) (v, c string) {
	v, c = setVersion, setCommit
	if bi != nil {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		if c == "" {
			c = vcsCommit(bi.Settings)
		}
	}
	if v == "" {
		v = devVersion
	}
	if c == "" {
		c = "unknown"
	}
	return v, c
}

func vcsCommit(settings []debug.BuildSetting) string {
	var rev string
	var modified bool
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		rev += "-dirty"
	}
	return rev
}
