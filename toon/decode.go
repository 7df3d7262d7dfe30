package toon

import (
	"errors"
	"fmt"
)

// DecodeError reports malformed TOON input and the 1-based line where it was
// found.
type DecodeError struct {
	Line int
	Msg  string
}

func (e *DecodeError) Error() string { return fmt.Sprintf("toon: line %d: %s", e.Line, e.Msg) }

// Decode is not written yet.
func Decode(data []byte, opts DecodeOptions) (Value, error) {
	return Value{}, errors.New("toon: decode not implemented yet")
}
