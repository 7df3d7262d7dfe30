package safefile

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// raceAttempts is how many opens race the swapping; before openat2 a
// check-then-open let 10-30% of them escape.
const raceAttempts = 2000

// swapLoop exchanges root/d (a directory) and root/s (a symlink to outside)
// atomically, over and over, until stop is closed; it returns the number of
// swaps once stopped.
func swapLoop(t *testing.T, root string, stop <-chan struct{}) <-chan int {
	t.Helper()
	d, s := filepath.Join(root, "d"), filepath.Join(root, "s")
	done := make(chan int, 1)
	go func() {
		n := 0
		defer func() { done <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, s, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			n++
		}
	}()
	return done
}

// raceTree builds root/d/args (inside), outside/args and root/s ->
// outside: swapping d and s makes root/d/args name the outside file half
// of the time.
func raceTree(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, dir := range []string{filepath.Join(root, "d"), outside} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "d", "args"), []byte("inside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "args"), []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "s")); err != nil {
		t.Fatal(err)
	}
	return root
}

// However the directory and the symlink are swapped during the open, what
// OpenIn reads is inside the root: the check is the open.
func TestOpenIn_RenameExchangeRace(t *testing.T) {
	for _, impl := range []struct {
		name string
		open func(dir, name string) (*os.File, error)
	}{{"default", openBeneath}, {"walk", openInRoot}} {
		t.Run(impl.name, func(t *testing.T) {
			root := raceTree(t)
			stop := make(chan struct{})
			swaps := swapLoop(t, root, stop)
			var inside, refused, escaped atomic.Int64
			// openat2 refuses (EAGAIN) an open that races a rename, so
			// under -race, where the swaps outpace the opens, whole
			// batches can be refused: go on past raceAttempts until a read
			// has succeeded, within a bound.
			deadline := time.Now().Add(20 * time.Second)
			var wg sync.WaitGroup
			for w := 0; w < 2; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < raceAttempts/2 || (inside.Load() == 0 && time.Now().Before(deadline)); i++ {
						f, err := openIn(root, filepath.Join("d", "args"), impl.open)
						if err != nil {
							refused.Add(1)
							continue
						}
						data, err := io.ReadAll(f)
						if cerr := f.Close(); cerr != nil {
							t.Error(cerr)
						}
						switch {
						case err != nil:
							t.Error(err)
						case string(data) == "outside":
							escaped.Add(1)
						default:
							inside.Add(1)
						}
					}
				}()
			}
			wg.Wait()
			close(stop)
			n := <-swaps
			t.Logf("%d swaps: %d reads inside, %d refused, %d escaped", n, inside.Load(), refused.Load(), escaped.Load())
			if escaped.Load() != 0 {
				t.Fatalf("%d of %d reads escaped the root", escaped.Load(), raceAttempts)
			}
			if inside.Load() == 0 {
				t.Fatal("no read succeeded: the test proves nothing")
			}
		})
	}
}
