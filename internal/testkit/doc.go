// Package testkit holds the test helpers that more than one package's
// tests need: a log sink goroutines can share, a Go program built once
// per test run (the fixture MCP server), polling for a condition, and a
// directory short enough for a unix socket.
//
// It is imported only from _test.go files, never by dispatch itself, and
// holds no state of its own: what is built once lives in a Binary value
// the test package owns.
package testkit
