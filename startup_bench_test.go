package main

import (
	"io"
	"testing"
)

// BenchmarkCLIParse measures what every dispatch command pays before it
// runs: building the command-line grammar from the CLI struct (kong
// reflects over every command and flag and interpolates every help text)
// and parsing one in-session call's arguments.
//
//	go test -run '^$' -bench BenchmarkCLIParse -benchmem .
func BenchmarkCLIParse(b *testing.B) {
	args := []string{"call", "echo", "message=hello"}
	b.Run("New", func(b *testing.B) {
		for b.Loop() {
			var cli CLI
			if _, err := newParser(&cli, func(int) {}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("NewAndParse", func(b *testing.B) {
		for b.Loop() {
			var cli CLI
			parser, err := newParser(&cli, func(int) {})
			if err != nil {
				b.Fatal(err)
			}
			parser.Stdout, parser.Stderr = io.Discard, io.Discard
			if _, err := parser.Parse(args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
