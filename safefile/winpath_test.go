package safefile

import (
	"strings"
	"testing"
)

// The Windows name rule, held to Windows-shaped names on every platform.
func TestWindowsLocalName(t *testing.T) {
	tests := []struct {
		name  string
		errIn string // "" = accepted
	}{
		{`result.json`, ""},
		{`sub\dir\file.txt`, ""},
		{`sub/dir/file.txt`, ""},
		{`.\file`, ""},
		{`a.b.c`, ""},
		{`console.log.txt`, ""}, // CON is reserved, "console" is not
		{`COM10`, ""},
		{``, "empty"},
		{`..\secret`, "'..'"},
		{`../secret`, "'..'"},
		{`a\..\..\secret`, "'..'"},
		{`a/b/../../../x`, "'..'"},
		{`\Windows\win.ini`, "rooted"},
		{`/etc/passwd`, "rooted"},
		{`\\server\share\f`, "rooted or UNC"},
		{`\\?\C:\Windows\win.ini`, "rooted or UNC"},
		{`\\.\PhysicalDrive0`, "rooted or UNC"},
		{`//?/C:/x`, "rooted or UNC"},
		{`C:secret`, "':'"},
		{`C:\secret`, "':'"},
		{`c:/secret`, "':'"},
		{`file:stream`, "alternate data stream"},
		{`file::$DATA`, "alternate data stream"},
		{`dir\file.json:hidden:$DATA`, "alternate data stream"},
		{`NUL`, "reserved device"},
		{`nul.txt`, "reserved device"},
		{`sub\con`, "reserved device"},
		{`Aux .json`, "reserved device"},
		{`COM1`, "reserved device"},
		{`lpt9.log`, "reserved device"},
		{`CONIN$`, "reserved device"},
		{`secret.`, "ends in a dot or space"},
		{`secret `, "ends in a dot or space"},
		{`dir.\file`, "ends in a dot or space"},
		{`*.json`, "not allowed"},
		{`what?`, "not allowed"},
		{"a\x00b", "control character"},
		{"a\tb", "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := windowsLocalName(tt.name)
			switch {
			case tt.errIn == "" && err != nil:
				t.Errorf("windowsLocalName(%q) = %v, want accepted", tt.name, err)
			case tt.errIn != "" && (err == nil || !strings.Contains(err.Error(), tt.errIn)):
				t.Errorf("windowsLocalName(%q) = %v, want an error with %q", tt.name, err, tt.errIn)
			}
		})
	}
}

// The check on an opened file's final path: strictly below the
// directory, without case, whole components only.
func TestFinalPathWithin(t *testing.T) {
	tests := []struct {
		dir, file string
		want      bool
	}{
		{`\\?\C:\Users\u\AppData\Local\Temp\dispatch-spill-1-x`, `\\?\C:\Users\u\AppData\Local\Temp\dispatch-spill-1-x\a.json`, true},
		{`\\?\C:\Work\Args`, `\\?\c:\work\ARGS\sub\f.json`, true},
		{`\\?\C:\Work\Args\`, `\\?\C:\Work\Args\f`, true},
		{`\\?\UNC\srv\share\root`, `\\?\UNC\srv\share\root\f`, true},
		{`\\?\C:\Work\Args`, `\\?\C:\Work\Args`, false},
		{`\\?\C:\Work\Args`, `\\?\C:\Work\Args\`, false},
		{`\\?\C:\Work\Args`, `\\?\C:\Work\ArgsX\f`, false},
		{`\\?\C:\Work\Args`, `\\?\C:\Windows\win.ini`, false},
		{`\\?\C:\Work\Args`, `\\?\D:\Work\Args\f`, false},
		{`\\?\C:\Work\Args`, `\\?\UNC\srv\share\f`, false},
		{``, `\\?\C:\f`, false},
	}
	for _, tt := range tests {
		if got := finalPathWithin(tt.dir, tt.file); got != tt.want {
			t.Errorf("finalPathWithin(%q, %q) = %v, want %v", tt.dir, tt.file, got, tt.want)
		}
	}
}
