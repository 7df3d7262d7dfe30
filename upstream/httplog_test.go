package upstream

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestSessionLogHandler_MasksIDs: a session id anywhere in a line (a
// value, an error's text, an attribute added before, a group) becomes the
// session's log id, or says the session is not open.
func TestSessionLogHandler_MasksIDs(t *testing.T) {
	const open, gone = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	reg := &registry{byID: map[string]*httpSession{open: {id: open, logID: "h7"}}}
	var out bytes.Buffer
	log := slog.New(sessionLogHandler{next: slog.NewTextHandler(&out, nil), sessions: reg})
	log.With("session", open).Error("failed for "+gone, "err", errors.New("no pending request for session "+open),
		slog.Group("g", "id", gone), "n", 3)
	line := out.String()
	if strings.Contains(line, open) || strings.Contains(line, gone) {
		t.Fatalf("a session id is in the line: %s", line)
	}
	for _, want := range []string{"session=h7", `"failed for (no open session)"`, `err="no pending request for session h7"`, `g.id="(no open session)"`, "n=3"} {
		if !strings.Contains(line, want) {
			t.Errorf("the line lacks %s: %s", want, line)
		}
	}
}
