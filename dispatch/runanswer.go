package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"dispatch/spill"
)

// stepAnswer is what later steps of a run may refer to in a step that
// succeeded:
//
//   - resultFile: the file a call's result was saved to (above the
//     threshold, or with resultToFile); absent when the result came inline.
//   - value: the result itself. For a call, the part a result file would
//     hold: structuredContent (unwrapped when it only wraps the text), else
//     the lone text item parsed as JSON, else that text as a JSON string,
//     else the whole content list; read from the file when the result was
//     saved. For readresult, the data it read (its "value"). For list,
//     search and info, their whole answer (read from its file when it
//     was saved, as a large call result is).
type stepAnswer struct {
	resultFile string
	// value is the inline value as JSON; nil when it lives in resultFile
	// or does not exist.
	value json.RawMessage
	// noValue says why there is no value, when there is none.
	noValue string
	// noFile says why there is no resultFile, when the usual reason (the
	// result came inline) is not it.
	noFile string
}

// answerOf builds the referable answer of a step's response.
func answerOf(resp any, inline *callResult) (*stepAnswer, error) {
	switch r := resp.(type) {
	case *CallResponse:
		if r.Spill != nil {
			return &stepAnswer{resultFile: r.Spill.ResultFile}, nil
		}
		kind, data, _ := inline.payload()
		if kind == payloadText {
			quoted, err := marshalJSON(string(data))
			if err != nil {
				return nil, fmt.Errorf("encode step value: %w", err)
			}
			data = quoted
		}
		return &stepAnswer{value: data}, nil
	case *SavedAnswer:
		return &stepAnswer{resultFile: r.Spill.ResultFile}, nil
	case *ResourceResponse:
		return resourceStepAnswer(r)
	case *PromptResponse:
		if r.Spill != nil {
			return &stepAnswer{resultFile: r.Spill.ResultFile}, nil
		}
	case *ReadResponse:
		if r.Value == nil {
			return &stepAnswer{noValue: "its readresult gave no value that is whole and exact (stat, a cut query result, or bytes that are not UTF-8)"}, nil
		}
		return &stepAnswer{value: r.Value}, nil
	}
	data, err := marshalJSON(resp)
	if err != nil {
		return nil, fmt.Errorf("encode step value: %w", err)
	}
	return &stepAnswer{value: data}, nil
}

// resourceStepAnswer makes a read's saved content its resultFile, as a
// saved tool result is, when the resource has that one content: "$ID.value"
// is then the file's text or JSON (a binary file's value is the answer).
// A read that saved several contents names them in the answer's value.
func resourceStepAnswer(r *ResourceResponse) (*stepAnswer, error) {
	data, err := marshalJSON(r)
	if err != nil {
		return nil, fmt.Errorf("encode step value: %w", err)
	}
	a := &stepAnswer{value: data}
	var saved []int
	var part struct{ ResultFile, Format string }
	for i, c := range r.Contents {
		part.ResultFile, part.Format = "", ""
		if json.Unmarshal(c, &part) == nil && part.ResultFile != "" {
			saved = append(saved, i)
		}
	}
	switch {
	case len(r.Contents) == 1 && len(saved) == 1:
		a.resultFile = part.ResultFile
		if part.Format != "binary" {
			a.value = nil // read from the file, as for a saved tool result
		}
	case len(saved) > 0:
		a.noFile = fmt.Sprintf(`it saved %d of its %d contents, each to its own file: use "$ID.value.contents.%d.resultFile"`, len(saved), len(r.Contents), saved[0])
	}
	return a, nil
}

// resolve returns the JSON that ref stands for in answer a of step name.
// A value held in a result file is read from it with argumentsFile's
// rules and bound (--max-args-file), never whole into memory for a path.
func (s *Service) resolve(ctx context.Context, ref stepReference, a *stepAnswer, name string) (json.RawMessage, error) {
	if ref.field == "resultFile" {
		if a.resultFile == "" && a.noFile != "" {
			return nil, usagef(strings.ReplaceAll(a.noFile[strings.Index(a.noFile, "use "):], "$ID", "$"+name),
				"%q: step %s has no one result file: %s", ref.text, name, a.noFile[:strings.Index(a.noFile, ": use ")])
		}
		if a.resultFile == "" {
			return nil, usagef(`Use "$`+name+`.value" for an inline result, or give step `+name+` "resultToFile": true`,
				"%q: step %s's result came inline, not saved to a file", ref.text, name)
		}
		return marshalJSON(a.resultFile)
	}
	switch {
	case a.resultFile != "" && a.value == nil:
		// argumentsKey lets a text file come back as a JSON string.
		v, err := s.argumentsFileValue(ctx, Request{ArgumentsFile: a.resultFile, ArgumentsPath: ref.path, ArgumentsKey: "value"})
		if err != nil {
			return nil, fmt.Errorf("%q: %w", ref.text, err)
		}
		return json.RawMessage(v.Raw), nil
	case a.value == nil:
		return nil, usagef(refHint, "%q: step %s has no value: %s", ref.text, name, a.noValue)
	case ref.path == "":
		return a.value, nil
	}
	raw, err := spill.SelectBytes("step "+name+"'s value", a.value, ref.path, s.opts.MaxArgumentsFileBytes)
	switch {
	case errors.Is(err, spill.ErrBadRequest), errors.Is(err, spill.ErrTooLarge):
		return nil, usagef(`Look at that step's answer in this run's result, or run the step alone`, "%q: %v", ref.text, err)
	case err != nil:
		return nil, fmt.Errorf("%q: %w", ref.text, err)
	}
	return raw, nil
}
