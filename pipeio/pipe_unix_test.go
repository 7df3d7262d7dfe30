//go:build unix

package pipeio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// A write of more than the pipe holds waits in the poller while the pipe
// is full and returns once all of it is written, in order; the reader
// reads it whole and then EOF.
func TestWriter_WaitsWhilePipeFull(t *testing.T) {
	r, w, err := os.Pipe() // non-blocking, in the poller, as Stdio makes them
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB: many pipes full
	wrote := make(chan error, 1)
	go func() {
		n, err := NewWriter(w).Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		w.Close()
		wrote <- err
	}()
	time.Sleep(50 * time.Millisecond) // the writer meets a full pipe
	got, err := io.ReadAll(NewReader(r))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("write: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(want))
	}
}

// A write to a pipe whose reader has gone fails with EPIPE, however much
// of it was written: it neither waits for ever nor kills the process.
func TestWriter_ReaderGoneIsEPIPE(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	done := make(chan error, 1)
	go func() {
		_, err := NewWriter(w).Write(bytes.Repeat([]byte("x"), 1<<20))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, syscall.EPIPE) {
			t.Fatalf("write to a pipe without reader: %v, want EPIPE", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("write to a pipe without reader still waits after 10 s")
	}
}

// A blocking descriptor cannot be waited on in the poller: NewReader and
// NewWriter give the file itself, which reads and writes as it always has.
func TestBlockingFileAsItIs(t *testing.T) {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	defer r.Close()
	defer w.Close()
	if NewReader(r) != io.Reader(r) || NewWriter(w) != io.Writer(w) {
		t.Error("a blocking pipe was wrapped for the poller")
	}
}
