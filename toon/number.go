package toon

import (
	"math/big"
	"strconv"
)

// isJSONNumber reports whether s follows the JSON number grammar
// -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?. The TOON decoder's numeric-literal
// rule (spec §4) is the same grammar.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

// isNumericLike reports whether a string would be read back as a number-ish
// token and so must be quoted (spec §7.2): /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.
func isNumericLike(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == start {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// canonicalNumber returns the spec §2 canonical form of the JSON number text
// s (see appendCanonicalNumber).
func canonicalNumber(s string) string {
	if isCanonicalPlain(s) {
		return s
	}
	return string(appendCanonicalNumber(nil, s))
}

// isCanonicalPlain reports whether the JSON number text s is already in
// canonical plain form: no exponent, no leading zeros, no trailing fractional
// zeros, not -0, and 1e-6 <= |n| < 1e21 (or n == 0).
func isCanonicalPlain(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intLen := i - start
	if intLen == 0 || intLen > 21 {
		return false
	}
	zeroInt := s[start] == '0'
	if zeroInt && intLen > 1 {
		return false
	}
	if i == len(s) {
		return !(zeroInt && start == 1) // "-0" is not canonical
	}
	if s[i] != '.' {
		return false
	}
	i++
	fracStart := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i != len(s) || i == fracStart || s[i-1] == '0' {
		return false
	}
	if zeroInt {
		// 0.000001 is the smallest plain form: at most five zeros after the
		// point. The fraction ends in a non-zero digit, so this loop stops.
		z := 0
		for s[fracStart+z] == '0' {
			z++
		}
		if z > 5 {
			return false
		}
	}
	return true
}

// appendCanonicalNumber appends the canonical TOON form (spec §2) of the exact
// value of the JSON number text s, which must satisfy isJSONNumber:
//   - 0 for any zero, including -0;
//   - plain decimal when 1e-6 <= |n| < 1e21, with no leading zeros and no
//     trailing fractional zeros;
//   - otherwise d[.ddd]e±x, as JavaScript's Number#toString writes it.
func appendCanonicalNumber(dst []byte, s string) []byte {
	if isCanonicalPlain(s) {
		return append(dst, s...)
	}
	neg := false
	i := 0
	if s[0] == '-' {
		neg = true
		i = 1
	}
	var buf [64]byte
	digits := buf[:0]
	for i < len(s) && isDigit(s[i]) {
		digits = append(digits, s[i])
		i++
	}
	point := len(digits) // digits before the decimal point
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			digits = append(digits, s[i])
			i++
		}
	}
	expText := ""
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		expText = s[i+1:]
	}
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	if lead == len(digits) {
		return append(dst, '0')
	}
	digits = digits[lead:]
	point -= lead
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if neg {
		dst = append(dst, '-')
	}
	// The value is 0.d1d2...dn × 10^(point+exp); its scientific exponent is
	// sci = point + exp - 1, so the plain range is -6 <= sci <= 20.
	exp, ok := parseSmallExponent(expText)
	if !ok {
		return appendHugeExponent(dst, digits, point, expText)
	}
	sci := int64(point) + exp - 1
	if sci < -6 || sci > 20 {
		dst = appendMantissa(dst, digits)
		dst = append(dst, 'e')
		if sci >= 0 {
			dst = append(dst, '+')
		}
		return strconv.AppendInt(dst, sci, 10)
	}
	pp := int(sci) + 1 // position of the decimal point within digits
	switch {
	case pp <= 0:
		dst = append(dst, '0', '.')
		for ; pp < 0; pp++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	case pp >= len(digits):
		dst = append(dst, digits...)
		for n := len(digits); n < pp; n++ {
			dst = append(dst, '0')
		}
	default:
		dst = append(dst, digits[:pp]...)
		dst = append(dst, '.')
		dst = append(dst, digits[pp:]...)
	}
	return dst
}

func appendMantissa(dst, digits []byte) []byte {
	dst = append(dst, digits[0])
	if len(digits) > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	return dst
}

// maxSmallExponent bounds exponents handled with int64 arithmetic; larger ones
// go through math/big so that even absurd exponents stay exact.
const maxSmallExponent = 1e15

// parseSmallExponent parses an optional-signed decimal exponent ("" is 0).
func parseSmallExponent(s string) (int64, bool) {
	if s == "" {
		return 0, true
	}
	neg := false
	switch s[0] {
	case '-':
		neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s); i++ {
		n = n*10 + int64(s[i]-'0')
		if n > maxSmallExponent {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

// appendHugeExponent writes d[.ddd]e±x for an exponent beyond
// maxSmallExponent; such values are always outside the plain range.
func appendHugeExponent(dst, digits []byte, point int, expText string) []byte {
	e, ok := new(big.Int).SetString(expText, 10)
	if !ok { // unreachable for isJSONNumber input; keep the text rather than panic
		return append(dst, expText...)
	}
	e.Add(e, big.NewInt(int64(point)-1))
	dst = appendMantissa(dst, digits)
	dst = append(dst, 'e')
	if e.Sign() >= 0 {
		dst = append(dst, '+')
	}
	return e.Append(dst, 10)
}
