package spill

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// processStart returns the start time of pid (field 22 of /proc/<pid>/stat).
// The error wraps fs.ErrNotExist when the process does not exist.
func processStart(pid int) (uint64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read process start time: %w", err)
	}
	return parseStatStart(data)
}

// parseStatStart extracts field 22 (starttime) from a /proc/<pid>/stat line.
// Field 2 (comm) is parenthesised and may hold spaces and parentheses, so
// fields are counted from the last ')'.
func parseStatStart(data []byte) (uint64, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, errors.New("parse /proc stat: no command field")
	}
	fields := strings.Fields(string(data[i+1:]))
	// fields[0] is field 3 (state), so field 22 is fields[19].
	const idx = 22 - 3
	if len(fields) <= idx {
		return 0, fmt.Errorf("parse /proc stat: %d fields after the command, want more than %d", len(fields), idx)
	}
	start, err := strconv.ParseUint(fields[idx], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse /proc stat start time: %w", err)
	}
	return start, nil
}
