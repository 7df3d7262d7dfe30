// Package spill stores large tool results in private temporary files and
// reads them back piecewise, with every output bounded.
//
// Its one job: put bytes on disk safely (a per-process 0700 directory, 0600
// files with unguessable names, a total size cap, cleanup on Close and of
// directories left behind by dead processes) and give bounded, streaming
// views of any file (Stat, Head, Tail, Slice, Grep, Read, Query) whose text
// form is meant for an AI agent. Memory use of every readback operation stays
// flat however large the file is, and nothing is ever cut silently: every
// truncation is stated in the result.
//
// Import rule: spill imports only the standard library, dispatch/safefile,
// github.com/tidwall/gjson and github.com/dustin/go-humanize. It knows
// nothing about MCP, never prints and never logs; callers decide what to do
// with results and errors. Confinement is the caller's choice: the readback
// methods of Limits read an opened *os.File, and an MCP-facing caller opens
// it with (*Store).Open, which checks the file it opened rather than a name
// it would open again. The package-level functions open any path (with
// safefile.Open, which refuses FIFOs and devices without blocking).
package spill
