package connections

import (
	"fmt"
	"time"
)

// ReplaceRetryWindow bounds how long replacing a file (the token file,
// a cache file) retries while another process has the old one open.
// Windows refuses to replace a file that is open without
// FILE_SHARE_DELETE — as Go opens every file, so another dispatch reading
// it, or a virus scanner, makes the rename fail with "Access is denied"
// for a moment; cmd/go's robustio retries such renames for 2 s too.
const ReplaceRetryWindow = 2 * time.Second

// replaceRetryMaxSleep caps the wait between two tries.
const replaceRetryMaxSleep = 100 * time.Millisecond

// retryReplace calls rename(from, to) until it succeeds, fails with an
// error transient does not accept, or window has passed since the first
// try; the waits between tries double from a millisecond.
func retryReplace(rename func(from, to string) error, transient func(error) bool, window time.Duration, from, to string) error {
	start := time.Now()
	sleep := time.Millisecond
	for tries := 1; ; tries++ {
		err := rename(from, to)
		if err == nil || !transient(err) {
			return err
		}
		if time.Since(start)+sleep > window {
			return fmt.Errorf("%w (still refused after %d tries over %s: another program, such as another dispatch or a virus scanner, keeps %s open)",
				err, tries, time.Since(start).Round(time.Millisecond), to)
		}
		time.Sleep(sleep)
		sleep = min(2*sleep, replaceRetryMaxSleep)
	}
}
