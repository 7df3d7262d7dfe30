package main

import (
	"errors"
	"regexp"
	"strings"
	"sync"

	"dispatch/dispatch"
)

// agentTerms rewrites what dispatch's errors call a request's parameters
// and actions, written for an agent that sends JSON, into the command
// line's flags and commands.
var agentTerms = strings.NewReplacer(
	// Some errors give both forms already; keep the shell's.
	`{"action":"list","refresh":true}, or dispatch list --refresh`, "dispatch list --refresh",
	`{"action":"list","refresh":true}`, "dispatch list --refresh",
	`{"action":"search","query":"..."}`, "dispatch search WORDS",
	`{"action":"list"}`, "dispatch list",
	`{"action":"list","type":"resource"}`, "dispatch list --type resource",
	`{"action":"list","type":"prompt"}`, "dispatch list --type prompt",
	`{"action":"list","type":"resource","refresh":true}`, "dispatch list --type resource --refresh",
	`{"action":"list","type":"prompt","refresh":true}`, "dispatch list --type prompt --refresh",
	`"argumentsFile"`, "-f/--arguments-file",
	`"argumentsPath"`, "--arguments-path",
	`"argumentsKey"`, "--arguments-key",
	`"arguments" is not`, "the arguments are not",
	`"arguments"`, "the arguments",
	`"connection"`, "-C/--connection",
	`"resultToFile"`, "-o/--result-to-file",
	`"meta"`, "--meta",
	`"limit"`, "--limit",
	`"offset"`, "--offset",
	`"format"`, "--format",
	`"lines"`, "--lines",
	`"fromLine"`, "--from-line",
	`"toLine"`, "--to-line",
	`"maxMatches"`, "--max-matches",
	`"maxBytes"`, "--max-bytes",
	`"pattern"`, "--pattern",
	`"path"`, "--path",
)

// exampleRequest is a proxy-dispatch request in a hint. It matches
// objects nested one level deep ("arguments":{...}), and no further than
// the example's closing brace.
const exampleRequest = `\{"action":"(\w+)"[^{}]*(\{[^{}]*\}[^{}]*)*\}`

// agentExample is a hint showing a proxy-dispatch request, which means
// nothing at a shell.
var agentExample = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(Example: )?` + exampleRequest)
})

// agentExamples is an "Example: {…} or {…}" hint, whose requests become
// one pointer to --help before agentTerms could turn the first into a
// bare command ("Example: dispatch list or See …").
var agentExamples = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`Example: ` + exampleRequest + `(?: or ` + exampleRequest + `)*`)
})

// shellHelpFor names the command whose --help shows examples of what an
// agent's example request does: a call of a resource or prompt is
// "dispatch read" or "dispatch prompt" on the command line.
func shellHelpFor(example string) string {
	command := agentExample().FindStringSubmatch(example)[2]
	if command == "call" {
		switch {
		case strings.Contains(example, `"type":"resource"`):
			command = "read"
		case strings.Contains(example, `"type":"prompt"`):
			command = "prompt"
		}
	}
	return "See 'dispatch " + command + " --help' for examples"
}

// repeatedHelp is a pointer to --help that an error with two example
// requests ("…, or with a template {…}") got twice.
var repeatedHelp = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(See '[^']+' for examples)(?:[^.']*See '[^']+' for examples)+`)
})

// bothForms is a parameter an error already names in both forms,
// `"maxMatches" (--max-matches)`: the shell keeps the flag alone.
var bothForms = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"\w+" \((--[\w-]+)\)`) })

// bareParams are argumentsFile's parameters named unquoted at the head of
// a message ("argumentsFile F holds text").
var bareParams = strings.NewReplacer(
	"argumentsFile ", "-f/--arguments-file ",
	"argumentsPath ", "--arguments-path ",
	"argumentsKey ", "--arguments-key ",
)

// shellErr is an error reworded for the command line; it unwraps to the
// original, so the exit code is the same.
type shellErr struct {
	msg string
	err error
}

func (e *shellErr) Error() string { return e.msg }
func (e *shellErr) Unwrap() error { return e.err }

// shellError rewords a request's error for a shell user: flags instead of
// request parameters, the command's --help instead of a JSON example.
func shellError(err error) error {
	var usage *dispatch.UsageError
	var notFound *dispatch.ToolNotFoundError
	if !errors.As(err, &usage) && !errors.As(err, &notFound) {
		return err
	}
	msg := err.Error()
	if usage != nil && usage.ShellHint != "" {
		// The hint has its own shell form; only the message is reworded.
		shell := bareParams.Replace(agentTerms.Replace(bothForms().ReplaceAllString(usage.Msg, "$1"))) + ". " + usage.ShellHint
		msg = strings.Replace(msg, usage.Error(), shell, 1)
		if msg == err.Error() {
			return err
		}
		return &shellErr{msg: msg, err: err}
	}
	msg = bothForms().ReplaceAllString(msg, "$1")
	msg = agentExamples().ReplaceAllStringFunc(msg, shellHelpFor)
	msg = agentTerms.Replace(msg)
	msg = agentExample().ReplaceAllStringFunc(msg, shellHelpFor)
	msg = repeatedHelp().ReplaceAllString(msg, "$1")
	msg = shellNotes(msg)
	if msg == err.Error() {
		return err
	}
	return &shellErr{msg: msg, err: err}
}
