package dispatch

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"dispatch/connections"
)

// recorded keeps the answer a started call got.
type recorded struct{ answer []byte }

func (r *recorded) Answer(answer []byte)          { r.answer = append([]byte(nil), answer...) }
func (r *recorded) Panic(any)                     {}
func (r *recorded) Batch() *connections.SendBatch { return nil }

// loggedCalls keeps the isError of each call's log line.
type loggedCalls struct {
	slog.Handler
	isError []bool
}

func (*loggedCalls) Enabled(context.Context, slog.Level) bool { return true }
func (l *loggedCalls) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "isError" {
			l.isError = append(l.isError, a.Value.Bool())
		}
		return true
	})
	return nil
}

// TestStartedCall_AnswersAsTheGeneralPath holds what a started call
// answers for its server's result, stamped or not, to what the general
// path (callResponse, shape, stampProxy, encoding/json) makes of the same
// result, errors included, and checks that the links among its content
// are remembered as callResponse remembers them.
func TestStartedCall_AnswersAsTheGeneralPath(t *testing.T) {
	cases := []struct {
		name  string
		raw   string
		links []string // remembered for the connection
	}{
		{"text", `{"content":[{"type":"text","text":"hello"}]}`, nil},
		{"isError", `{"content":[{"type":"text","text":"no"}],"isError":true}`, nil},
		{"structured", `{"content":[{"type":"text","text":"{\"sum\":42}"}],"structuredContent":{"sum":42}}`, nil},
		{"server meta", `{"_meta":{"trace":"x"},"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`, nil},
		{"resource link", `{"content":[{"type":"resource_link","uri":"file:///a.txt","name":"a"},{"uri":"x://late","type":"resource_link"}]}`, []string{"file:///a.txt", "x://late"}},
		{"embedded resource", `{"content":[{"type":"resource","resource":{"uri":"mem://b","text":"b"}}]}`, []string{"mem://b"}},
		{"link escaped", `{"content":[{"type":"resource_link","uri":"x://\u00e9"}]}`, []string{"x://é"}},
		{"empty content", `{"content":[]}`, nil},

		// Left to the general path, which words or reshapes them.
		{"unknown member", `{"content":[{"type":"resource_link","uri":"y://1"}],"extra":1}`, []string{"y://1"}},
		{"case-insensitive member", `{"Content":[{"type":"text","text":"hi"}]}`, nil},
		{"no content", `{"structuredContent":{"a":1}}`, nil},
		{"null structured", `{"content":[],"structuredContent":null}`, nil},
		{"isError not a boolean", `{"content":[],"isError":"yes"}`, nil},
		{"meta with our key", `{"content":[],"_meta":{"dispatch":1}}`, nil},
		{"meta with a proxy fact", `{"content":[],"_meta":{"proxyAction":"x"}}`, nil},
		{"content not an array", `{"content":{"type":"text"}}`, nil},
		{"not an object", `[1]`, nil},
		{"not JSON", `{"content":[}`, nil},
	}
	set, err := connections.NewSet([]connections.ServerConfig{{Transport: connections.TransportStdio, Command: "unused-server"}}, connections.Options{})
	if err != nil {
		t.Fatal(err)
	}
	conn := set.Conns()[0]
	for _, c := range cases {
		for _, stamped := range []bool{true, false} {
			t.Run(c.name, func(t *testing.T) {
				logged := &loggedCalls{}
				s := New(set, Options{Logger: slog.New(logged)})
				req := Request{Action: "call", Tool: "echo", Arguments: json.RawMessage(`{}`)}
				to := &recorded{}
				call := &startedCall{s: s, conn: conn, req: req, checked: req, stamped: stamped, dst: []byte("prefix:"), to: to,
					which: func() string { return "--timeout" }, ctx: context.Background(), timeout: time.Minute, started: time.Now()}
				call.finish(json.RawMessage(c.raw), nil, s.resultFile(req, json.RawMessage(c.raw)))
				if string(to.answer[:min(7, len(to.answer))]) != "prefix:" {
					t.Fatalf("the answer does not follow its prefix: %s", to.answer)
				}

				general := New(set, Options{})
				resp, err := general.callResponse(context.Background(), conn, req, json.RawMessage(c.raw), nil, call.which)
				var answer any
				if resp != nil {
					answer = resp
				}
				result := general.shape(req, answer, err)
				if stamped {
					stampProxy(result, req)
				}
				want, err := json.Marshal(result)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(decoded(t, to.answer[7:]), decoded(t, want)) {
					t.Errorf("started call answered:\n %s\nthe general path:\n %s", to.answer[7:], want)
				}
				if resp != nil && (len(logged.isError) != 1 || logged.isError[0] != resp.IsError) {
					t.Errorf("the call's log line says isError %v, want [%v]", logged.isError, resp.IsError)
				}
				for _, uri := range c.links {
					if !s.links.returned(conn.Alias, uri) {
						t.Errorf("%s was not remembered as returned by %s", uri, conn.Alias)
					}
				}
			})
		}
	}
}
