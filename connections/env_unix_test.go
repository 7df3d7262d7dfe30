//go:build !windows

package connections

import (
	"slices"
	"testing"
)

func TestServerEnv(t *testing.T) {
	environ := []string{
		"HOME=/home/u", "LOGNAME=u", "PATH=/usr/bin", "SHELL=/bin/sh", "TERM=xterm", "USER=u",
		"LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_GB", "TMPDIR=/tmp/u", "XDG_RUNTIME_DIR=/run/user/1", "XDG_CONFIG_HOME=/home/u/.config",
		"GITHUB_TOKEN=ghp_secret", "AWS_SECRET_ACCESS_KEY=aws", "ANTHROPIC_API_KEY=sk-ant", "SSH_AUTH_SOCK=/tmp/agent",
		"PATHEXT=.exe", "HOMEDIR=/x", "MY_XDG_DIR=/x", "LCX=1", "lang=lower", "home=lower",
		"BASH_FUNC_f%%=() { echo pwned; }", "TERM_FN=() { :; }", "SHELL2=/bin/sh",
		"NOEQUALS",
	}
	tests := []struct {
		name       string
		configured map[string]string
		inherit    bool
		want       []string
	}{
		{
			name: "default: the safe set only",
			want: []string{
				"HOME=/home/u", "LOGNAME=u", "PATH=/usr/bin", "SHELL=/bin/sh", "TERM=xterm", "USER=u",
				"LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_GB", "TMPDIR=/tmp/u", "XDG_RUNTIME_DIR=/run/user/1", "XDG_CONFIG_HOME=/home/u/.config",
			},
		},
		{
			name:       "configured env is added after, so it wins",
			configured: map[string]string{"GITHUB_TOKEN": "for-this-server", "PATH": "/opt/bin", "A": "1"},
			want: []string{
				"HOME=/home/u", "LOGNAME=u", "PATH=/usr/bin", "SHELL=/bin/sh", "TERM=xterm", "USER=u",
				"LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_GB", "TMPDIR=/tmp/u", "XDG_RUNTIME_DIR=/run/user/1", "XDG_CONFIG_HOME=/home/u/.config",
				"A=1", "GITHUB_TOKEN=for-this-server", "PATH=/opt/bin",
			},
		},
		{
			name:    "inherit: everything, functions included",
			inherit: true,
			want:    environ[:len(environ)-1], // a malformed entry is never passed
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serverEnv(environ, tt.configured, tt.inherit)
			if !slices.Equal(got, tt.want) {
				t.Errorf("serverEnv =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
