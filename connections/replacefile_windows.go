package connections

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// replaceFile renames from over to, retrying for ReplaceRetryWindow while
// another process holds to open (see retryReplace).
func replaceFile(from, to string) error {
	return retryReplace(os.Rename, isReplaceRefused, ReplaceRetryWindow, from, to)
}

// isReplaceRefused reports whether err is Windows refusing a rename
// because the target is open elsewhere.
func isReplaceRefused(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}
