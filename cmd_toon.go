package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"dispatch/toon"
)

// ToonCmd converts between JSON and TOON, for shell pipelines.
type ToonCmd struct {
	File         string `arg:"" optional:"" default:"-" help:"Input file; - or nothing for stdin."`
	Decode       bool   `short:"d" help:"Decode TOON to JSON instead of encoding."`
	Indent       int    `default:"2" help:"Spaces per indentation level (TOON; and JSON with --decode, 0 = compact)."`
	Delimiter    string `default:"comma" enum:"comma,tab,pipe" help:"Array delimiter when encoding: ${enum}."`
	KeyFolding   string `name:"key-folding" default:"off" enum:"off,safe" help:"Fold chains of single-key objects into dotted keys: ${enum}."`
	FlattenDepth int    `name:"flatten-depth" help:"Most segments folded into one key (0 = unlimited)."`
	Strict       bool   `default:"true" negatable:"" help:"Decoding: enforce declared lengths, widths and indentation."`
	ExpandPaths  string `name:"expand-paths" default:"off" enum:"off,safe" help:"Decoding: split dotted keys into nested objects: ${enum}."`
}

func (c *ToonCmd) Run() error {
	tuneGCForToon()
	var in io.Reader = os.Stdin
	if c.File != "-" {
		f, err := openNamed(c.File)
		if err != nil {
			return &usageErr{fmt.Errorf("toon: %w", err)}
		}
		defer f.Close()
		in = f
	}
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	if c.Decode {
		data, err := io.ReadAll(in)
		if err != nil {
			return fmt.Errorf("toon: read: %w", err)
		}
		indent := ""
		for i := 0; i < c.Indent; i++ {
			indent += " "
		}
		opts := toon.DecodeOptions{Indent: c.Indent, Strict: c.Strict, ExpandPaths: c.ExpandPaths}
		if opts.Indent == 0 {
			opts.Indent = 2
		}
		if err := toon.DecodeToJSON(out, data, opts, indent); err != nil {
			return &usageErr{err}
		}
	} else {
		delim := map[string]byte{"comma": ',', "tab": '\t', "pipe": '|'}[c.Delimiter]
		opts := toon.EncodeOptions{Indent: c.Indent, Delimiter: delim, KeyFolding: c.KeyFolding, FlattenDepth: c.FlattenDepth}
		if err := toon.EncodeJSON(out, in, opts); err != nil {
			return &usageErr{err}
		}
	}
	if _, err := out.WriteString("\n"); err != nil {
		return fmt.Errorf("toon: write: %w", err)
	}
	return out.Flush()
}
