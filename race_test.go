//go:build race

package main

// Under go test -race, the dispatch binary the tests drive is built with
// the race detector too, so races in the server itself are caught.
func init() { buildFlags = append(buildFlags, "-race") }
