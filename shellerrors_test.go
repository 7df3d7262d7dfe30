package main

import (
	"strings"
	"testing"

	"dispatch/dispatch"
)

// An agent's request in an error reads as the command that does the same
// at a shell, never as a garbled "refresh them with See '...' for
// examples".
func TestShellError_AgentRequestsBecomeCommands(t *testing.T) {
	for _, tt := range []struct{ msg, want string }{
		{`no prompt with name "args-promp" (the prompts of c1 come from the catalog cache: if it is new, refresh them with {"action":"list","type":"prompt","refresh":true})`,
			"refresh them with dispatch list --type prompt --refresh)"},
		{`no resource with uri "x://y" (the resources of c1 come from the catalog cache: if it is new, refresh them with {"action":"list","type":"resource","refresh":true})`,
			"refresh them with dispatch list --type resource --refresh)"},
	} {
		got := shellError(&dispatch.UsageError{Msg: tt.msg}).Error()
		if !strings.Contains(got, tt.want) || strings.Contains(got, "See 'dispatch") {
			t.Errorf("shellError(%q) = %q; want it to contain %q", tt.msg, got, tt.want)
		}
	}
}
