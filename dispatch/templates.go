package dispatch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/yosida95/uritemplate/v3"

	"dispatch/connections"
	"dispatch/uritemplates"
)

// Bounds of the completions info shows for a template's variables.
const (
	// CompletionTimeout bounds asking for every variable's completions
	// together: info must answer promptly however slow the server.
	CompletionTimeout = 10 * time.Second
	// MaxTemplateVariables is how many variables get completions; the
	// rest are named without.
	MaxTemplateVariables = 20
	// MaxCompletionsShown is how many values of each variable are shown;
	// "more" says when the server has others.
	MaxCompletionsShown = 20
)

func parseTemplate(template string) (*uritemplate.Template, error) {
	tmpl, err := uritemplate.New(template)
	if err != nil {
		return nil, fmt.Errorf("the server's URI template %q is not valid RFC 6570: %w", template, err)
	}
	return tmpl, nil
}

// matchTemplate reports whether uri is an expansion of template, with the
// values of its variables.
func matchTemplate(template, uri string) (map[string]string, bool) {
	return uritemplates.Match(template, uri)
}

// completeVariables fills vars with the values the server completes each
// to (completion/complete with an empty value) when it declared the
// completions capability. It returns why they have none, or "".
func completeVariables(ctx context.Context, c *connections.Conn, template string, vars []TemplateVariable) string {
	if len(vars) == 0 {
		return ""
	}
	if caps, ok := c.Capabilities(); ok && !caps.Completions {
		return "" // the server offers none: nothing to explain
	}
	ctx, cancel := context.WithTimeout(ctx, CompletionTimeout)
	defer cancel()
	for i := range vars {
		if i == MaxTemplateVariables {
			return fmt.Sprintf("completions are shown for the first %d variables only", MaxTemplateVariables)
		}
		got, err := c.Complete(ctx, connections.CompleteRequest{URITemplate: template, Argument: vars[i].Name})
		if err != nil {
			if caps, ok := c.Capabilities(); ok && !caps.Completions {
				return "" // learned only now, by starting the server
			}
			if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
				return fmt.Sprintf("no completions within %s (CompletionTimeout): %v", CompletionTimeout, err)
			}
			return err.Error()
		}
		vars[i].Completions = got.Values
		vars[i].More = got.HasMore || got.Total > len(got.Values)
		if len(vars[i].Completions) > MaxCompletionsShown {
			vars[i].Completions = vars[i].Completions[:MaxCompletionsShown]
			vars[i].More = true
		}
	}
	return ""
}
