package connections

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var errRefused = errors.New("Access is denied")

func TestRetryReplace(t *testing.T) {
	transient := func(err error) bool { return errors.Is(err, errRefused) }
	t.Run("succeeds once the other reader lets go", func(t *testing.T) {
		calls := 0
		err := retryReplace(func(string, string) error {
			if calls++; calls < 3 {
				return errRefused
			}
			return nil
		}, transient, time.Minute, "tmp", "tokens.json")
		if err != nil || calls != 3 {
			t.Errorf("err %v after %d tries; want success on the third", err, calls)
		}
	})
	t.Run("gives up after the window, saying why", func(t *testing.T) {
		calls := 0
		err := retryReplace(func(string, string) error { calls++; return errRefused }, transient, 20*time.Millisecond, "tmp", "tokens.json")
		if !errors.Is(err, errRefused) || !strings.Contains(err.Error(), "keeps tokens.json open") || calls < 2 {
			t.Errorf("err %v after %d tries; want the refusal, retried, naming the file held open", err, calls)
		}
	})
	t.Run("other errors are not retried", func(t *testing.T) {
		calls, other := 0, errors.New("no such directory")
		err := retryReplace(func(string, string) error { calls++; return other }, transient, time.Minute, "tmp", "tokens.json")
		if !errors.Is(err, other) || calls != 1 {
			t.Errorf("err %v after %d tries; want it returned at once", err, calls)
		}
	})
}
