package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/alecthomas/kong"

	"dispatch/dispatch"
)

// ReadCmd reads a resource.
type ReadCmd struct {
	URI          string   `arg:"" help:"The resource's URI, or a URI template whose variables follow as NAME=VALUE."`
	Variables    []string `arg:"" optional:"" help:"Template variables: NAME=VALUE."`
	Connection   string   `short:"C" help:"Connection to read from, when several could serve the URI."`
	ResultToFile string   `name:"result-to-file" short:"o" placeholder:"PATH" help:"Write the resource's content to PATH (kept; a blob decoded) and print a summary."`
	Meta         string   `help:"JSON object forwarded as the request's _meta."`
	CallTimeout  *float64 `name:"call-timeout" help:"Seconds before the read is cancelled (overrides --timeout)."`
}

// Help is shown under read's usage line.
func (c *ReadCmd) Help() string {
	return `A blob (image, PDF, ...) is always saved to a file, decoded: give -o FILE, or --spill-dir DIR. Examples:

    dispatch -m SERVER read demo://resource/static/document/architecture.md
    dispatch -m SERVER read 'demo://resource/dynamic/text/{resourceId}' resourceId=2
    dispatch -m SERVER read demo://resource/dynamic/blob/1 -o blob.bin
    dispatch -m SERVER --spill-dir out --threshold 100KiB read file:///big.log`
}

func (c *ReadCmd) Run(ctx context.Context, g *Globals, k *kong.Context) error {
	args, err := stringPairs(c.Variables, "template variable")
	if err != nil {
		return err
	}
	return g.readOrGet(ctx, k, dispatch.Request{Action: "call", Type: dispatch.TypeResource, URI: c.URI, Arguments: args,
		Connection: c.Connection, Timeout: c.CallTimeout, TimeoutName: "--call-timeout"}, c.Meta, c.ResultToFile)
}

// PromptCmd gets a prompt.
type PromptCmd struct {
	Name         string   `arg:"" help:"The prompt's name."`
	Arguments    []string `arg:"" optional:"" help:"The prompt's arguments: NAME=VALUE (always strings)."`
	Connection   string   `short:"C" help:"Connection, when the prompt exists on several."`
	ResultToFile string   `name:"result-to-file" short:"o" placeholder:"PATH" help:"Write the prompt's messages to PATH as JSON (kept) and print a summary."`
	Meta         string   `help:"JSON object forwarded as the request's _meta."`
	CallTimeout  *float64 `name:"call-timeout" help:"Seconds before the request is cancelled (overrides --timeout)."`
}

// Help is shown under prompt's usage line.
func (c *PromptCmd) Help() string {
	return `Images, audio and embedded blobs in the messages are saved to files: give --spill-dir DIR. Examples:

    dispatch -m SERVER prompt simple-prompt
    dispatch -m SERVER prompt args-prompt city=Paris state=TX`
}

func (c *PromptCmd) Run(ctx context.Context, g *Globals, k *kong.Context) error {
	args, err := stringPairs(c.Arguments, "prompt argument")
	if err != nil {
		return err
	}
	return g.readOrGet(ctx, k, dispatch.Request{Action: "call", Type: dispatch.TypePrompt, Prompt: c.Name, Arguments: args,
		Connection: c.Connection, Timeout: c.CallTimeout, TimeoutName: "--call-timeout"}, c.Meta, c.ResultToFile)
}

// readOrGet runs a resource read or prompt get and prints its answer, or
// saves it to toFile.
func (g *Globals) readOrGet(ctx context.Context, k *kong.Context, req dispatch.Request, meta, toFile string) error {
	if err := g.checkOneShotThreshold(flagGiven(k, "threshold") && !thresholdNever(g.Threshold), toFile != ""); err != nil {
		return err
	}
	var err error
	if req.Meta, err = metaFlag(meta); err != nil {
		return err
	}
	build := func(context.Context, core) (dispatch.Request, error) { return req, nil }
	if toFile == "" {
		return g.withRequest(ctx, build, func(_ core, resp any) (any, error) { return resp, nil })
	}
	created, err := checkResultFile(toFile)
	if err != nil {
		return err
	}
	if req.Type == dispatch.TypeResource {
		req.SaveTo = toFile
	} else {
		req.ResultSizeThreshold = new(int64) // as call -o: the messages go to toFile alone
	}
	err = g.withRequest(ctx, build, func(a core, resp any) (any, error) {
		switch r := resp.(type) {
		case *dispatch.ResourceResponse:
			return r.Saved, nil
		case *dispatch.PromptResponse:
			return a.saveMessages(ctx, r, toFile)
		}
		return resp, nil
	})
	if err != nil && created {
		os.Remove(toFile) // an empty file left by a failed read would pass for a result
	}
	return err
}

// stringPairs turns NAME=VALUE words into a JSON object of strings.
func stringPairs(words []string, what string) (json.RawMessage, error) {
	if len(words) == 0 {
		return nil, nil
	}
	args := make(map[string]string, len(words))
	for _, w := range words {
		name, value, ok := strings.Cut(w, "=")
		if !ok || name == "" {
			return nil, &usageErr{fmt.Errorf("%s %q must be NAME=VALUE", what, w)}
		}
		if _, dup := args[name]; dup {
			return nil, &usageErr{fmt.Errorf("%s %q is given twice", what, name)}
		}
		args[name] = value
	}
	data, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode %ss: %w", what, err)
	}
	return data, nil
}

// readOrGet runs call --type resource|prompt: the name is the URI or
// the prompt, the arguments are NAME=VALUE strings.
func (c *CallCmd) readOrGet(ctx context.Context, g *Globals, k *kong.Context) error {
	if c.ArgumentsFile != "" {
		return &usageErr{fmt.Errorf("call --type %s takes NAME=VALUE arguments, not -f/--arguments-file", c.Type)}
	}
	args, err := stringPairs(c.Arguments, c.Type+" argument")
	if err != nil {
		return err
	}
	req := dispatch.Request{Action: "call", Type: c.Type, Arguments: args, Connection: c.Connection,
		Timeout: c.CallTimeout, TimeoutName: "--call-timeout"}
	if c.Type == dispatch.TypeResource {
		req.URI = c.Tool
	} else {
		req.Prompt = c.Tool
	}
	return g.readOrGet(ctx, k, req, c.Meta, c.ResultToFile)
}
