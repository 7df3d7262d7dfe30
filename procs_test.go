package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

func parsePID(s string) (int, error) {
	s = strings.Trim(s, ".,;:()[]{}\"'")
	n, err := strconv.Atoi(s)
	if err != nil || n <= 1 {
		return 0, fmt.Errorf("not a pid: %q", s)
	}
	return n, nil
}

// processAlive reports whether pid runs and is not a zombie.
func processAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	stat := string(data)
	if i := strings.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
