package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"time"

	"dispatch/connections"
)

// configWatcher applies changes of the --config files to the running
// servers while dispatch serves an agent. It polls the files' content
// rather than waiting for file system events: that needs no dependency,
// works the same on every platform and file system, and sees a file
// replaced by rename (as editors save) as well as one written in place.
type configWatcher struct {
	g        *Globals
	conns    *connections.Set
	interval time.Duration
	// changed is called after a new config changed the servers (to tell
	// the agent with notifications/tools/list_changed).
	changed func(connections.Changes)
	log     interface {
		Info(msg string, args ...any)
		Warn(msg string, args ...any)
	}
	seen [][32]byte // the content hash of each file as last read
}

// fileState is a file's content hash, or a hash of why it could not be
// read, so that a file that disappears and comes back counts as changes.
func fileState(path string) [32]byte {
	data, err := connections.ReadConfigFile(path)
	if err != nil {
		return sha256.Sum256([]byte("unreadable: " + err.Error()))
	}
	return sha256.Sum256(data)
}

func (w *configWatcher) snapshot() [][32]byte {
	states := make([][32]byte, len(w.g.Config))
	for i, path := range w.g.Config {
		states[i] = fileState(path)
	}
	return states
}

// run polls until ctx ends. The first snapshot is taken at once: a change
// made between loading the config and now is seen on the first tick only
// if it happened after, which is the best polling can do.
func (w *configWatcher) run(ctx context.Context) {
	w.seen = w.snapshot()
	ticker := time.NewTicker(w.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			w.check()
		}
	}
}

// check reloads the config once any file changed. An invalid config is
// reported once (until the files change again) and the running one kept.
func (w *configWatcher) check() {
	now := w.snapshot()
	same := true
	for i := range now {
		same = same && bytes.Equal(now[i][:], w.seen[i][:])
	}
	if same {
		return
	}
	w.seen = now
	configs, err := w.g.loadConfigs()
	if err != nil {
		w.log.Warn("config changed but is invalid; keeping the running servers", "error", err.Error())
		return
	}
	changes, err := w.conns.Update(configs)
	if err != nil {
		w.log.Warn("config changed but is invalid; keeping the running servers", "error", err.Error())
		return
	}
	if changes.Empty() {
		w.log.Info("config changed; no server did")
		return
	}
	w.log.Info("config applied", "changes", changes.String())
	if w.changed != nil {
		w.changed(changes)
	}
}
