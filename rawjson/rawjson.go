package rawjson

import (
	"encoding/json"
	"unicode/utf8"
)

// AppendString appends s as a JSON string, as encoding/json.Marshal
// writes it (HTML characters and invalid UTF-8 escaped the same way).
func AppendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			// Rare in names and aliases: encoding/json says how.
			data, err := json.Marshal(s)
			if err != nil {
				panic("rawjson: a string failed to encode: " + err.Error()) // json.Marshal never fails on a string
			}
			return append(dst, data...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
