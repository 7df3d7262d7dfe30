package dispatch

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"dispatch/spill"
)

// Saving a result is part of its call: a call already cancelled (or past
// its time limit) writes nothing and leaves no partial file.
func TestService_spillPayload_context(t *testing.T) {
	store, err := spill.Open(spill.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s := New(nil, Options{Spill: store})
	data := []byte(strings.Repeat(`{"a":[`, 3000) + "1" + strings.Repeat(`]}`, 3000))

	for _, end := range []struct {
		name string
		ctx  func() context.Context
		want error
	}{
		{"cancelled", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, context.Canceled},
		{"past its time limit", func() context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), 0)
			t.Cleanup(cancel)
			return ctx
		}, context.DeadlineExceeded},
	} {
		_, err := s.spillPayload(end.ctx(), payloadJSON, data, savedStructured, false)
		if !errors.Is(err, end.want) {
			t.Errorf("%s: err = %v, want %v", end.name, err, end.want)
		}
	}
	if files := store.Files(); len(files) != 0 {
		t.Errorf("files after ended calls: %v", files)
	}
	entries, err := os.ReadDir(store.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != ".owner" {
			t.Errorf("partial file %s left", e.Name())
		}
	}
	// The same payload with a live context is saved.
	info, err := s.spillPayload(context.Background(), payloadJSON, data, savedStructured, false)
	if err != nil || info.Bytes != layoutIndented(data).size {
		t.Fatalf("live call: %+v, %v", info, err)
	}
}
