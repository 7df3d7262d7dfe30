package connections

import (
	"fmt"
	"os/exec"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// useBatchCommandLine makes a server that is a batch file (npx resolves
// to npx.cmd) run by cmd.exe with a command line that passes its
// arguments unchanged (see batchargs.go); an argument that cannot be
// passed makes Start fail with the reason. Nothing changes for any other
// program.
func useBatchCommandLine(cmd *exec.Cmd) {
	if cmd.Err != nil || !isBatchFile(cmd.Path) {
		return
	}
	line, err := batchCommandLine(cmd.Path, cmd.Args[1:])
	if err != nil {
		cmd.Err = fmt.Errorf("start %s: %w", cmd.Path, err)
		return
	}
	system, err := windows.GetSystemDirectory()
	if err != nil {
		cmd.Err = fmt.Errorf("start %s: find cmd.exe: %w", cmd.Path, err)
		return
	}
	cmd.Path = filepath.Join(system, "cmd.exe")
	cmd.SysProcAttr.CmdLine = line
}
