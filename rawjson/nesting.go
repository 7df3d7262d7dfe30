package rawjson

import "bytes"

// NestingWithin reports whether data, read as JSON, nests arrays and
// objects at most limit levels deep. It only skips strings and counts
// brackets, without recursion and without checking anything else, so it
// is safe on any input, however deep: gjson's validator recurses once
// per level, and a line of a few million brackets from a hostile peer
// would grow a goroutine's stack past Go's limit, which is a crash no
// recover catches. Check this first, then validate.
func NestingWithin(data []byte, limit int) bool {
	if len(data) <= limit {
		return true // each level takes a byte: an agent's call, a server's small answer
	}
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			end := stringEnd(data, i+1)
			if end < 0 {
				return true // an unterminated string: the validator refuses it
			}
			i = end
		case '[', '{':
			if depth++; depth > limit {
				return false
			}
		case ']', '}':
			depth--
		}
	}
	return true
}

// stringEnd returns the index of the quote that closes the string whose
// contents start at from, or -1 if it does not end.
func stringEnd(data []byte, from int) int {
	for {
		q := bytes.IndexByte(data[from:], '"')
		if q < 0 {
			return -1
		}
		end := from + q
		// The quote is escaped if an odd number of backslashes precede it.
		backslashes := 0
		for j := end - 1; j >= from && data[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return end
		}
		from = end + 1
	}
}
