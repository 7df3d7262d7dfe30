package connections

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/mark3labs/mcp-go/client/transport"

	"dispatch/pipeio"
)

// errWouldBlock says a message could not be written to a server's stdin
// without waiting: another is being written, or the pipe is full.
var errWouldBlock = errors.New("the server's stdin cannot take the message without waiting")

// writeNow is pipeio.WriteNow to a server's stdin, its refusal to wait
// as errWouldBlock.
func writeNow(stdin *os.File, data []byte) (int, error) {
	n, err := pipeio.WriteNow(stdin, data)
	if errors.Is(err, pipeio.ErrWouldBlock) {
		err = errWouldBlock
	}
	return n, err
}

// errNotSent marks the error of a call none of which reached the server:
// its stdin failed before any of it was written. It is safe to send again.
var errNotSent = errors.New("the call was not sent")

// errNoneWaiting ends the write of calls none of which waits for its
// answer any more (cancelled, timed out): nothing of them was written.
var errNoneWaiting = errors.New("no call waits for the answer any more")

// MaxBatchBytes bounds the calls a SendBatch holds for one server: past
// it, they are written before the next is added.
const MaxBatchBytes = 64 << 10

// SendBatch gathers the calls StartCall begins while the agent's reader
// has more lines at hand, so that those bound for the same server go in
// one write when the reader calls Flush, before it would wait to read:
// under load, one system call per server per read instead of one per
// call. A lone call is flushed at once, so none waits for company. It is
// used by one goroutine at a time (the reader's).
type SendBatch struct {
	entries []*batchEntry
}

// batchEntry is what a SendBatch holds for one server.
type batchEntry struct {
	t     *stdioTransport
	data  []byte
	calls []batchedCall
}

type batchedCall struct {
	forget func() bool
	done   func(*transport.JSONRPCResponse, error)
	key    pendingKey
	line   int // where its line ends in the entry's data
}

// Flush writes what the batch holds, without waiting: what a server's
// stdin does not take at once is written by a goroutine of its own.
func (b *SendBatch) Flush() {
	if b == nil {
		return
	}
	for _, e := range b.entries {
		b.flushEntry(e)
	}
}

// Holding reports whether the batch holds calls not yet flushed.
func (b *SendBatch) Holding() bool {
	for _, e := range b.entries {
		if len(e.data) > 0 {
			return true
		}
	}
	return false
}

func (b *SendBatch) flushEntry(e *batchEntry) {
	if len(e.data) == 0 {
		return
	}
	if e.t.writeBatched(e.data, e.calls) {
		e.data = e.data[:0]
	} else {
		e.data = nil // the writing goroutine has it
	}
	clear(e.calls)
	e.calls = e.calls[:0]
}

// add holds data, a call's line, for t; done and forget are the call's.
func (b *SendBatch) add(t *stdioTransport, data []byte, call batchedCall) {
	var e *batchEntry
	for _, have := range b.entries {
		if have.t == t {
			e = have
			break
		}
	}
	if e == nil {
		e = &batchEntry{t: t}
		b.entries = append(b.entries, e)
	}
	if len(e.data) > 0 && len(e.data)+len(data) > MaxBatchBytes {
		b.flushEntry(e)
	}
	e.data = append(e.data, data...)
	call.line = len(e.data)
	e.calls = append(e.calls, call)
}

// writeBatched writes data, the lines of calls, without waiting: what
// the pipe does not take at once (or all of it, when another message is
// being written) is written by a goroutine that holds the write slot, as
// writeJSON would. A failed write fails the calls still waiting. It
// reports whether data may be reused (it was written, or failed, here).
func (t *stdioTransport) writeBatched(data []byte, calls []batchedCall) bool {
	var n int
	select {
	case t.writeSlot <- struct{}{}:
		// Calls cancelled or timed out while held are left out: with the
		// slot held, none can be cancelled between this and the write
		// without its notifications/cancelled going after it.
		if data, calls = t.dropAnswered(data, calls); len(data) == 0 {
			<-t.writeSlot
			return true
		}
		var err error
		n, err = writeNow(t.stdin, data)
		switch {
		case err == nil && n == len(data):
			<-t.writeSlot
			return true
		case err != nil && !errors.Is(err, errWouldBlock):
			<-t.writeSlot
			// Nothing was written: the calls go again, the general way,
			// which starts the server afresh (see writeFailed).
			failCalls(calls, t.writeFailed(err))
			return true
		}
		go t.finishBatch(data[n:], slices.Clone(calls), true)
	default:
		go t.finishBatch(data, slices.Clone(calls), false)
	}
	return false
}

// finishBatch writes data, the rest of calls' lines, waiting as writeJSON
// does; holding says the write slot is held already.
func (t *stdioTransport) finishBatch(data []byte, calls []batchedCall, holding bool) {
	if !holding {
		select {
		case t.writeSlot <- struct{}{}:
		case <-t.exited:
			failCalls(calls, t.exitError())
			return
		}
		// Nothing of data is written yet: calls cancelled or timed out
		// while it waited are left out, as SendRequest leaves out one
		// whose context ended while it waited for the slot.
		data, calls = t.dropAnswered(data, calls)
	}
	defer func() { <-t.writeSlot }()
	abandon := func() error {
		if !t.anyPending(calls) {
			return errNoneWaiting
		}
		return nil
	}
	if holding {
		abandon = nil // part of the message is written: the rest must follow
	}
	if err := t.writeAll(data, abandon); err != nil {
		failCalls(calls, err)
	}
}

// dropAnswered returns data, the lines of calls, and calls, without
// the calls no longer waiting for an answer (cancelled, timed out, failed).
// It reuses data's and calls' memory.
func (t *stdioTransport) dropAnswered(data []byte, calls []batchedCall) ([]byte, []batchedCall) {
	keptData, keptCalls := data[:0], calls[:0]
	start := 0
	t.pendingMu.Lock()
	for _, c := range calls {
		end := c.line
		if _, ok := t.pending[c.key]; ok {
			keptData = append(keptData, data[start:end]...) // copies leftwards: never over what is still to read
			c.line = len(keptData)
			keptCalls = append(keptCalls, c)
		}
		start = end
	}
	t.pendingMu.Unlock()
	clear(calls[len(keptCalls):])
	return keptData, keptCalls
}

// anyPending reports whether any of calls still waits for its answer.
func (t *stdioTransport) anyPending(calls []batchedCall) bool {
	t.pendingMu.Lock()
	defer t.pendingMu.Unlock()
	for _, c := range calls {
		if _, ok := t.pending[c.key]; ok {
			return true
		}
	}
	return false
}

// failCalls ends with err the calls not answered or taken back meanwhile.
func failCalls(calls []batchedCall, err error) {
	for _, c := range calls {
		if c.forget() {
			c.done(nil, err)
		}
	}
}

// sendAsync writes request and returns at once; done gets the response,
// or the error that ended the wait (the child's exit, a failed write), on
// the goroutine that read it. forget takes the request back: it reports
// whether it did, in which case done is never called; otherwise done has
// been or is being called. A write that fails at once returns its error,
// and done is not called.
//
// Nothing waits for the response, so no goroutine is woken to take it:
// the reading goroutine finishes the call. Nor does sendAsync ever wait
// to write, for its caller is the agent's reader, which must never wait
// on a server: when another message is being written or the pipe has no
// room, it returns errWouldBlock, having done nothing, and the caller
// sends the request the way that may wait (SendRequest, on a goroutine
// of its own). A message the pipe took in part is finished by a goroutine
// that holds the write slot meanwhile, as writeJSON would.
//
// With a batch, the request is held in it, to be written when the batch
// is flushed (see SendBatch).
func (t *stdioTransport) sendAsync(request transport.JSONRPCRequest, done func(*transport.JSONRPCResponse, error), batch *SendBatch) (forget func() bool, err error) {
	data, err := encodeRequest(request)
	if err != nil {
		return nil, fmt.Errorf("encode message: %w", err)
	}
	if batch != nil {
		return t.sendBatched(request, data, done, batch)
	}
	select {
	case t.writeSlot <- struct{}{}:
	default:
		return nil, errWouldBlock
	}
	key := pendingKeyOf(request.ID)
	// Before the write: the answer may come before writeNow returns.
	if !t.addPending(key, pendingRequest{done: done}) {
		<-t.writeSlot
		return nil, t.exitError()
	}
	forget = t.forgetter(key)
	n, err := writeNow(t.stdin, data)
	switch {
	case err == nil && n == len(data):
		<-t.writeSlot
		return forget, nil
	case err == nil && n > 0:
		go t.writeRest(data[n:], forget, done)
		return forget, nil
	case err == nil:
		err = errWouldBlock
	case !errors.Is(err, errWouldBlock):
		err = t.writeFailed(err)
	}
	<-t.writeSlot
	if !forget() {
		return forget, nil // the child exited meanwhile, and done was told so
	}
	return nil, err
}

// writeRest writes rest, what of a message sendAsync began the pipe did
// not take at once, then gives back the write slot; a failed write fails
// the request, unless it was answered or taken back meanwhile. Its values
// are passed, not captured: a closure capturing them moved forget to the
// heap on every call, not only on this rare one.
func (t *stdioTransport) writeRest(rest []byte, forget func() bool, done func(*transport.JSONRPCResponse, error)) {
	defer func() { <-t.writeSlot }()
	if err := t.writeAll(rest, nil); err != nil && forget() {
		done(nil, err)
	}
}

// sendBatched is sendAsync with a batch.
func (t *stdioTransport) sendBatched(request transport.JSONRPCRequest, data []byte, done func(*transport.JSONRPCResponse, error), batch *SendBatch) (forget func() bool, err error) {
	key := pendingKeyOf(request.ID)
	if !t.addPending(key, pendingRequest{done: done}) {
		return nil, t.exitError()
	}
	forget = t.forgetter(key)
	batch.add(t, data, batchedCall{forget: forget, done: done, key: key})
	return forget, nil
}

// addPending registers p as the way the answer to key is delivered, and
// reports whether it did: not once the child has exited, for waitLoop
// gives every request registered before that its error, and none after.
func (t *stdioTransport) addPending(key pendingKey, p pendingRequest) bool {
	t.pendingMu.Lock()
	defer t.pendingMu.Unlock()
	select {
	case <-t.exited:
		return false
	default:
		t.pending[key] = p
		return true
	}
}

// forgetter returns the forget of the pending request key: it takes the
// request back, reporting whether it was still waiting for its answer.
func (t *stdioTransport) forgetter(key pendingKey) func() bool {
	return func() bool {
		t.pendingMu.Lock()
		_, ok := t.pending[key]
		delete(t.pending, key)
		t.pendingMu.Unlock()
		return ok
	}
}
