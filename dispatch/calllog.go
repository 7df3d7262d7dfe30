package dispatch

import (
	"context"
	"log/slog"
	"time"
)

// logCall writes the one info line each call gets, whatever its outcome:
// what an operator needs to see which calls are slow, large or failing.
// Arguments and results are never logged; the logger masks credentials
// in what is (error texts are server-written).
func (s *Service) logCall(alias, tool string, started time.Time, resp *CallResponse, err error) {
	if !s.log.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	attrs := []slog.Attr{
		slog.String("connection", alias),
		slog.String("tool", tool),
		slog.String("duration", time.Since(started).Round(time.Microsecond).String()),
	}
	if resp != nil {
		attrs = append(attrs, slog.Int64("bytes", resp.Bytes), slog.Bool("saved", resp.Spill != nil))
		if resp.Spill != nil {
			attrs = append(attrs, slog.String("file", resp.Spill.ResultFile))
		}
		attrs = append(attrs, slog.Bool("isError", resp.IsError))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "call", attrs...)
}
