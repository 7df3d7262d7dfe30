package spill

import (
	"errors"
	"fmt"
)

var (
	// ErrSpillFull is wrapped by the error Create returns when a result would
	// push the store past its MaxBytes.
	ErrSpillFull = errors.New("spill store is full")

	// ErrNotSpillFile is wrapped by the error Resolve returns for any path that
	// is not a live file created by that Store.
	ErrNotSpillFile = errors.New("not a spill file of this dispatch process")

	// ErrClosed is returned by Store methods called after Close.
	ErrClosed = errors.New("spill store is closed")

	// ErrInvalidPattern is wrapped by the error Grep returns for a pattern
	// that is not a valid RE2 regular expression.
	ErrInvalidPattern = errors.New("invalid regular expression")
)

// ErrBadRequest is matched (errors.Is) by every error that rejects the
// caller's input, such as a line number past the end of the file or a query
// that matches nothing, as opposed to a failure to read the file. A caller
// can show such an error as something to fix in the request.
var ErrBadRequest = errors.New("bad request")

// ErrTooLarge is matched (errors.Is), besides ErrBadRequest, by the
// errors that refuse a selection because what it selects or builds is
// larger than a limit, as opposed to a path that is malformed or matches
// nothing: only then may a larger limit help.
var ErrTooLarge = errors.New("selection too large")

// requestError is an error in the caller's input; see ErrBadRequest.
type requestError struct {
	msg      string
	tooLarge bool
}

func (e *requestError) Error() string { return e.msg }
func (e *requestError) Is(target error) bool {
	return target == ErrBadRequest || (e.tooLarge && target == ErrTooLarge)
}

func badRequest(format string, args ...any) error {
	return &requestError{msg: fmt.Sprintf(format, args...)}
}

// tooLarge is a badRequest that also matches ErrTooLarge.
func tooLarge(format string, args ...any) error {
	return &requestError{msg: fmt.Sprintf(format, args...), tooLarge: true}
}
