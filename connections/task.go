package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Bounds of waiting for a task. A server suggests how often to poll it;
// a hostile or careless one must neither make dispatch poll in a busy loop
// nor make it sleep through the end of the task.
const (
	TaskPollMin     = 100 * time.Millisecond
	TaskPollMax     = 5 * time.Second
	TaskPollDefault = time.Second
	// taskCancelTimeout bounds the tasks/cancel sent when a call is given up.
	taskCancelTimeout = 5 * time.Second
)

// ErrTaskCancelled means the server reports the task a tool call ran as
// cancelled, which dispatch did not ask for.
var ErrTaskCancelled = errors.New("the server cancelled the task")

// Task statuses (MCP 2025-11-25).
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

type taskState struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	PollInterval  *int64 `json:"pollInterval"`
}

func (t taskState) terminal() bool {
	return t.Status == taskCompleted || t.Status == taskFailed || t.Status == taskCancelled
}

// pollInterval is the server's suggestion, within TaskPollMin..TaskPollMax.
func (t taskState) pollInterval() time.Duration {
	if t.PollInterval == nil || *t.PollInterval <= 0 {
		return TaskPollDefault
	}
	if *t.PollInterval > int64(TaskPollMax/time.Millisecond) {
		return TaskPollMax
	}
	return max(time.Duration(*t.PollInterval)*time.Millisecond, TaskPollMin)
}

// callAsTask runs a tools/call as a task, for a tool whose
// execution.taskSupport is "required": it creates the task, polls it within
// the call's limit, relaying its status as progress, and fetches its
// result. If the caller gives up or the limit runs out, the task is
// cancelled on the server. It reports whether the limit ran out.
func (c *Conn) callAsTask(ctx context.Context, sess *session, req CallRequest, params callParams) (json.RawMessage, bool, error) {
	limited, cancel := withOptionalTimeout(ctx, req.Timeout)
	defer cancel()
	expired := func() bool { return limited.Err() != nil && ctx.Err() == nil }

	params.Task = &struct{}{}
	raw, sess, _, err := c.send(limited, sess, 0, "tools/call", params)
	if err != nil {
		return nil, expired(), err
	}
	var created struct {
		Task *taskState `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		return nil, false, fmt.Errorf("invalid answer to a task-augmented tools/call: %w", err)
	}
	if created.Task == nil || created.Task.TaskID == "" {
		return raw, false, nil // the server ran it at once after all
	}
	task := *created.Task
	raw, err = c.awaitTask(limited, sess, task, req.OnProgress)
	if err != nil && limited.Err() != nil {
		c.cancelTask(sess, task.TaskID)
	}
	return raw, expired(), err
}

// awaitTask polls task until it ends and returns its result.
func (c *Conn) awaitTask(ctx context.Context, sess *session, task taskState, onProgress func(map[string]any)) (json.RawMessage, error) {
	relayed, last := 0, ""
	for !task.terminal() && task.Status != taskInputRequired {
		if status := task.Status + ": " + task.StatusMessage; onProgress != nil && status != last {
			relayed++
			last = status
			// The status message is the server's to choose, of any length.
			onProgress(map[string]any{"progress": relayed, "message": "task " + c.opts.Redactor.boundText(task.describe(), "task status")})
		}
		timer := time.NewTimer(task.pollInterval())
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
		raw, err := c.request(ctx, sess, "tasks/get", map[string]any{"taskId": task.TaskID})
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &task); err != nil {
			return nil, fmt.Errorf("invalid tasks/get answer: %w", err)
		}
	}
	if task.Status == taskCancelled {
		// Both are the server's to choose, of any length.
		r := c.opts.Redactor
		return nil, fmt.Errorf("%w %s: %s", ErrTaskCancelled, quote(r, task.TaskID), r.boundMessage(task.StatusMessage))
	}
	// tasks/result waits for the end of a task still running (one that
	// needs input dispatch cannot give goes on without it, or says why not).
	return c.request(ctx, sess, "tasks/result", map[string]any{"taskId": task.TaskID})
}

func (t taskState) describe() string {
	if t.StatusMessage == "" {
		return t.Status
	}
	return t.Status + ": " + t.StatusMessage
}

// cancelTask asks the server to stop a task whose caller gave up. It is
// best effort and never blocks the caller.
func (c *Conn) cancelTask(sess *session, id string) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), taskCancelTimeout)
		defer cancel()
		if _, err := c.request(ctx, sess, "tasks/cancel", map[string]any{"taskId": id}); err != nil {
			c.log.Debug("cancel task", "task", id, "error", err.Error())
		}
	}()
}
