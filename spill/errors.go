package spill

import "errors"

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
