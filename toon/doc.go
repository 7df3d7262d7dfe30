// Package toon converts between JSON and TOON (Token-Oriented Object Notation),
// following TOON spec 3.3 (the @toon-format/spec@3.3.2 conformance fixtures are
// vendored under testdata/toon and run by the package tests).
//
// Its one job is that conversion: [ParseJSON] and [WriteJSON] read and write
// JSON into an order-preserving [Value]; [Encode] and [EncodeJSON] write TOON;
// [Decode] and [DecodeToJSON] read it back.
//
// Every function is pure and deterministic: the same input and options always
// produce the same bytes, nothing is cached between calls, there is no
// package-level mutable state, and nothing is logged (reporting is the
// caller's job). The package imports only the standard library.
//
// # Numbers
//
// Numbers are kept as decimal text, never as float64, so no precision is lost:
// integers past 2^53 keep their exact digits and long fractions are not
// rounded. The encoder writes the spec's canonical form of that exact value:
// plain decimal when 1e-6 <= |n| < 1e21 or n == 0 (no exponent, no leading or
// trailing zeros, -0 becomes 0), otherwise exponent form with a lowercase e and
// an explicit sign (1e-7, 1.5e+21). For numbers that are exactly representable
// as the shortest form of a float64 this matches the JavaScript reference
// encoder byte for byte. The decoder accepts any numeric token of the spec's
// grammar (tokens with forbidden leading zeros such as 05 stay strings) and
// returns its exact value in the same canonical form, including tokens such as
// 1e400 that a float64 cannot hold.
//
// # Memory
//
// [EncodeJSON] reads the whole JSON text into one string and, in the common
// case, parses it into a flat slice of 12-byte, pointer-free nodes that refer
// back into the text (about 1.1 times the JSON size for a table of short
// values; up to about 8 times, counting the slice's growth, for a dense
// array of one-digit numbers), so a document costs a few allocations, not
// several per value, and the garbage collector has nothing to scan. The output is streamed through a small
// buffer. The whole document is needed because the tabular form and key
// folding depend on every element of an array and every sibling of a key.
// Key folding, repeated keys, invalid JSON and documents with more than
// 65,535 distinct keys take the [Value] tree instead (ParseJSON, then
// Encode), which produces the same bytes and about three times the JSON size
// in values.
//
// # Options
//
// [EncodeOptions] and [DecodeOptions] carry the spec's options; their zero
// values are documented field by field. Key folding and path expansion are the
// spec 3.3 features; a later spec version would be selected through these
// option structs rather than through new functions.
package toon
