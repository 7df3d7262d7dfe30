package dispatch

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestByteBudget: callers hold at most max bytes together; one asking
// for more than is free waits until a release frees enough, or its
// context ends; one caller may take more than max when nobody holds any.
func TestByteBudget(t *testing.T) {
	b := newByteBudget(100)
	ctx := context.Background()
	if err := b.acquire(ctx, 60); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- b.acquire(ctx, 60) }()
	select {
	case err := <-got:
		t.Fatalf("a second 60 of 100 bytes was granted (%v) while the first 60 are held", err)
	case <-time.After(100 * time.Millisecond):
	}
	b.release(60)
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("after the release: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting caller was not let in after the release")
	}

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := b.acquire(short, 60); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("acquire past the budget with a context ending = %v, want it to end with the context", err)
	}
	b.release(60)
	if err := b.acquire(ctx, 500); err != nil {
		t.Errorf("one caller above the budget with nobody holding any: %v, want it granted", err)
	}
	b.release(500)
}
