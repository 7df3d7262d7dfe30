package toon

import (
	"fmt"
	"math"
)

// Values of [EncodeOptions.KeyFolding] and [DecodeOptions.ExpandPaths].
const (
	ModeOff  = "off"
	ModeSafe = "safe"
)

// EncodeOptions are the spec's encoder options (§13). The zero value is the
// spec's defaults: 2-space indent, comma delimiter, no key folding.
type EncodeOptions struct {
	// Indent is the number of spaces per indentation level; 0 means 2.
	Indent int
	// Delimiter is the document delimiter: ',', '\t' or '|'; 0 means ','.
	Delimiter byte
	// KeyFolding is ModeOff ("off", also "") or ModeSafe ("safe"), which
	// folds chains of single-key objects into dotted keys (§13.4).
	KeyFolding string
	// FlattenDepth is the most segments folded into one key when KeyFolding
	// is "safe". 0 means unlimited, the spec's default (Infinity). Values
	// below 2 other than 0 (e.g. 1 or -1) fold nothing, like the spec's
	// flattenDepth 0 and 1.
	FlattenDepth int
}

// DecodeOptions are the spec's decoder options (§13).
//
// The zero value is NOT the spec's default: its Strict is false (lenient).
// Use [DefaultDecodeOptions] for the spec's defaults.
type DecodeOptions struct {
	// Indent is the number of spaces per indentation level; 0 means 2.
	Indent int
	// Strict enables the §14 checks: declared counts, row widths,
	// indentation multiples, no tabs in indentation, no blank lines inside
	// arrays, no duplicate keys, no path-expansion conflicts. This
	// implementation also rejects, in strict mode, lines left over after the
	// root value (e.g. a line indented deeper than any open structure),
	// which the reference decoder silently drops.
	Strict bool
	// ExpandPaths is ModeOff ("off", also "") or ModeSafe ("safe"), which
	// splits unquoted dotted keys into nested objects (§13.4).
	ExpandPaths string
	// MaxValues bounds the values one document decodes to (array
	// elements, object members, tabular cells); 0 means
	// DefaultMaxDecodeValues. A decoded value costs tens of bytes however
	// short its text ("1," is two bytes), so this bounds memory where the
	// file's size cannot.
	MaxValues int
}

// DefaultMaxDecodeValues is the default DecodeOptions.MaxValues: 1 Mi
// values. A review measured 4 Mi at 427–730 MB of peak memory (100–175
// bytes a value with the garbage of growing slices), far above the
// "about 300 MB" first said; a quarter of that bounds one decode near
// 200 MB.
const DefaultMaxDecodeValues = 1 << 20

// DefaultDecodeOptions returns the spec's default decoder options: 2-space
// indent, strict mode on, no path expansion.
func DefaultDecodeOptions() DecodeOptions {
	return DecodeOptions{Indent: 2, Strict: true, ExpandPaths: ModeOff}
}

// encodeConfig is EncodeOptions with defaults applied and values checked.
type encodeConfig struct {
	indent  int
	delim   byte
	fold    bool
	flatten int // maximum folded segments; math.MaxInt for unlimited
}

func (o EncodeOptions) config() (encodeConfig, error) {
	c := encodeConfig{indent: o.Indent, delim: o.Delimiter, flatten: o.FlattenDepth}
	switch {
	case c.indent == 0:
		c.indent = 2
	case c.indent < 0:
		return c, fmt.Errorf("toon: invalid indent %d: must not be negative", o.Indent)
	}
	switch c.delim {
	case 0:
		c.delim = ','
	case ',', '\t', '|':
	default:
		return c, fmt.Errorf("toon: invalid delimiter %q: want ',', '\\t' or '|'", o.Delimiter)
	}
	switch o.KeyFolding {
	case "", ModeOff:
	case ModeSafe:
		c.fold = true
	default:
		return c, fmt.Errorf("toon: invalid key folding mode %q: want %q or %q", o.KeyFolding, ModeOff, ModeSafe)
	}
	switch {
	case c.flatten == 0:
		c.flatten = math.MaxInt
	case c.flatten < 0:
		c.flatten = 0
	}
	return c, nil
}

// decodeConfig is DecodeOptions with defaults applied and values checked.
type decodeConfig struct {
	indent    int
	strict    bool
	expand    bool
	maxValues int
}

func (o DecodeOptions) config() (decodeConfig, error) {
	c := decodeConfig{indent: o.Indent, strict: o.Strict, maxValues: o.MaxValues}
	switch {
	case c.maxValues == 0:
		c.maxValues = DefaultMaxDecodeValues
	case c.maxValues < 0:
		return c, fmt.Errorf("toon: invalid MaxValues %d: must not be negative", o.MaxValues)
	}
	switch {
	case c.indent == 0:
		c.indent = 2
	case c.indent < 0:
		return c, fmt.Errorf("toon: invalid indent %d: must not be negative", o.Indent)
	}
	switch o.ExpandPaths {
	case "", ModeOff:
	case ModeSafe:
		c.expand = true
	default:
		return c, fmt.Errorf("toon: invalid path expansion mode %q: want %q or %q", o.ExpandPaths, ModeOff, ModeSafe)
	}
	return c, nil
}
