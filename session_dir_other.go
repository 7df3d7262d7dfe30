//go:build !unix

package main

import (
	"errors"
	"os"
	"os/exec"
)

var errNoSessions = errors.New("shell sessions need a unix system (they listen on a unix socket in a private directory)")

func sessionBaseDir() (string, error)                { return "", errNoSessions }
func newSessionDir(string) (string, *os.File, error) { return "", nil, errNoSessions }
func sweepSessions(string) ([]string, error)         { return nil, errNoSessions }
func detach(*exec.Cmd)                               {}
