package main

import (
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name         string
		setV, setC   string
		bi           *debug.BuildInfo
		wantV, wantC string
	}{
		{"set at build time wins", "1.2.3", "abc1234", &debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}, Settings: vcs(rev, "true")}, "1.2.3", "abc1234"},
		{"go install module@version", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0", "unknown"},
		{"build in a clean checkout", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, devVersion, "0123456789ab"},
		{"build of modified sources", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, devVersion, "0123456789ab-dirty"},
		{"version set, commit from vcs", "2.0.0", "", &debug.BuildInfo{Settings: vcs(rev, "false")}, "2.0.0", "0123456789ab"},
		{"no build info", "", "", nil, devVersion, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, c := versionOf(tt.setV, tt.setC, tt.bi)
			if v != tt.wantV || c != tt.wantC {
				t.Errorf("versionOf = %q, %q; want %q, %q", v, c, tt.wantV, tt.wantC)
			}
		})
	}
}

// The built binary prints its version, commit and Go version, and the
// release script's ldflags set the first two.
func TestVersionFlag(t *testing.T) {
	out, err := exec.Command(dispatchBin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("dispatch --version: %v\n%s", err, out)
	}
	if got := string(out); !strings.HasPrefix(got, "dispatch ") || !strings.Contains(got, runtime.Version()) || !strings.Contains(got, "commit ") {
		t.Errorf("--version = %q; want dispatch VERSION (commit C, %s ...)", got, runtime.Version())
	}

	bin := t.TempDir() + "/dispatch-ldflags"
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version=1.2.3 -X main.commit=abc1234", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "--version").CombinedOutput()
	want := "dispatch 1.2.3 (commit abc1234, " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	if err != nil || string(out) != want {
		t.Errorf("--version = %q, %v; want %q", out, err, want)
	}
}
