package keychain

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zalando/go-keyring"
)

// DefaultTimeout is how long a keychain call may take before it is given
// up as unanswered (a locked keychain waiting on a password prompt).
const DefaultTimeout = 10 * time.Second

// ErrNotFound is a lookup of an account the keychain holds nothing for.
var ErrNotFound = errors.New("no such keychain item")

// UnavailableError is a keychain that cannot be used here: none is
// running, it refused, or it did not answer in time.
type UnavailableError struct {
	Op  string
	Err error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s: the OS keychain (%s) is unavailable: %v", e.Op, backendName, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// ErrTooLarge is a secret larger than the keychain takes.
var ErrTooLarge = errors.New("the secret is larger than the OS keychain takes")

// Keychain is one service's items in the OS keychain; an item is named by
// the service and an account.
type Keychain struct {
	service string
	timeout time.Duration
	// busy holds one slot while a call is with the OS: a call that never
	// comes back keeps it, and the calls after it fail at their timeout
	// instead of piling up goroutines.
	busy chan struct{}
}

// New returns the keychain items of service, each call bounded by timeout
// (DefaultTimeout when 0).
func New(service string, timeout time.Duration) *Keychain {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Keychain{service: service, timeout: timeout, busy: make(chan struct{}, 1)}
}

// Name says which keychain this is, for messages: "OS keychain (...)".
func (k *Keychain) Name() string { return "OS keychain (" + backendName + ")" }

// Get returns account's secret, or ErrNotFound.
func (k *Keychain) Get(ctx context.Context, account string) (string, error) {
	var secret string
	err := k.do(ctx, "read the keychain", func() error {
		var err error
		secret, err = keyring.Get(k.service, account)
		return err
	})
	return secret, err
}

// Set stores secret for account, replacing what was there.
func (k *Keychain) Set(ctx context.Context, account, secret string) error {
	if !fits(k.service, account, secret) {
		return fmt.Errorf("write the keychain: %w", ErrTooLarge)
	}
	return k.do(ctx, "write the keychain", func() error {
		return keyring.Set(k.service, account, secret)
	})
}

// Delete removes account's item; ErrNotFound when there was none.
func (k *Keychain) Delete(ctx context.Context, account string) error {
	return k.do(ctx, "delete from the keychain", func() error {
		return keyring.Delete(k.service, account)
	})
}

// Check reports whether the keychain answers here, with an
// *UnavailableError when it does not.
func (k *Keychain) Check(ctx context.Context) error {
	err := k.do(ctx, "reach the keychain", func() error {
		_, err := keyring.Get(k.service, "dispatch-keychain-check")
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// do runs call, one at a time, within the time limit, and sorts its error
// into ErrNotFound, ErrTooLarge and *UnavailableError.
func (k *Keychain) do(ctx context.Context, op string, call func() error) error {
	if err := reachable(); err != nil {
		return &UnavailableError{Op: op, Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	select {
	case k.busy <- struct{}{}:
	case <-ctx.Done():
		return &UnavailableError{Op: op, Err: fmt.Errorf("an earlier call has not come back in %s (is it locked, waiting for a password prompt?)", k.timeout)}
	}
	done := make(chan error, 1)
	go func() {
		defer func() { <-k.busy }()
		done <- call()
	}()
	select {
	case err := <-done:
		switch {
		case err == nil:
			return nil
		case errors.Is(err, keyring.ErrNotFound):
			return ErrNotFound
		case errors.Is(err, keyring.ErrSetDataTooBig):
			return fmt.Errorf("%s: %w", op, ErrTooLarge)
		default:
			return &UnavailableError{Op: op, Err: err}
		}
	case <-ctx.Done():
		return &UnavailableError{Op: op, Err: fmt.Errorf("no answer in %s (is it locked, waiting for a password prompt?)", k.timeout)}
	}
}
