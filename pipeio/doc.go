// Package pipeio reads and writes pipes in non-blocking mode, waiting in
// Go's network poller rather than in a system call that holds a thread.
//
// Both ends of dispatch's hot path are pipes: the agent's stdin and stdout
// and each stdio server's. A read or write that blocks in the kernel, or
// any system call made through package syscall, marks its goroutine's P as
// in a system call and wakes the runtime's monitor thread (sysmon); sysmon
// then takes the P back while the call waits and polls every 20 µs while it
// does. Under a stream of small calls that was a third of dispatch's CPU,
// spent on a 2-core machine beside the agent and the servers. Here a pipe
// is read and written with raw system calls that never block (Linux; on
// other systems package syscall's), and a pipe that is empty, or full,
// is waited on in the poller, where no thread is held and sysmon sleeps.
//
// A raw call must never block: it holds its thread where the runtime
// cannot stop it, so a collection would wait for it, and so would every
// goroutine. That holds for the pipes dispatch makes for its servers. The
// agent's ends may be shared, and their mode with them (see Stdio), so
// they are read through a description of dispatch's own or with flags
// that never wait, never by setting their shared mode.
package pipeio

import "errors"

// ErrWouldBlock says WriteNow could write nothing without waiting.
var ErrWouldBlock = errors.New("the pipe cannot take the data without waiting")
