package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"dispatch/spill"
	"dispatch/upstream"
)

// tokenEnv names the variable that may hold serve --listen's token.
const tokenEnv = "DISPATCH_TOKEN"

// minTokenLength is the shortest bearer token accepted: a short one can
// be guessed.
const minTokenLength = 16

// httpListen is serve --listen, set up before the servers start so that a
// bad flag costs nothing.
type httpListen struct {
	cmd      *ServeCmd
	token    string
	listener net.Listener
}

// prepareHTTP checks the flags, reads the token and opens the listener.
func (c *ServeCmd) prepareHTTP(g *Globals) (*httpListen, error) {
	switch {
	case c.SessionIdle <= 0:
		return nil, &usageErr{fmt.Errorf("--session-idle must be a positive duration such as 30m, not %s", c.SessionIdle)}
	case c.MaxSessions < 1:
		return nil, &usageErr{fmt.Errorf("--max-sessions must be at least 1, not %d", c.MaxSessions)}
	case c.MaxHTTPInFlight < 1:
		return nil, &usageErr{fmt.Errorf("--max-http-in-flight must be at least 1, not %d", c.MaxHTTPInFlight)}
	}
	if !strings.HasPrefix(c.Listen, upstream.UnixPrefix) {
		if _, _, err := net.SplitHostPort(c.Listen); err != nil {
			return nil, &usageErr{fmt.Errorf("--listen %q is neither host:port (e.g. 127.0.0.1:8931) nor unix:PATH", c.Listen)}
		}
	}
	token, err := c.readToken()
	if err != nil {
		return nil, err
	}
	if token == "" && !upstream.IsLoopbackAddr(c.Listen) {
		return nil, &usageErr{fmt.Errorf("--listen %s is reachable from other machines, and no token is set: anyone there could use your servers. Put a token of at least %d random characters in a file and add --token-file FILE (or set %s), or listen on 127.0.0.1:PORT or unix:PATH", c.Listen, minTokenLength, tokenEnv)}
	}
	l, err := upstream.Listen(c.Listen)
	if err != nil {
		return nil, &usageErr{fmt.Errorf("--listen: %w", err)}
	}
	return &httpListen{cmd: c, token: token, listener: l}, nil
}

// readToken reads --token-file, else DISPATCH_TOKEN, which is then taken
// out of the environment so that no server started with --inherit-env
// gets it.
func (c *ServeCmd) readToken() (string, error) {
	var token, from string
	if c.TokenFile != "" {
		if err := checkTokenFileMode(c.TokenFile); err != nil {
			return "", err
		}
		data, err := os.ReadFile(c.TokenFile)
		if err != nil {
			return "", &usageErr{fmt.Errorf("--token-file: %w", err)}
		}
		token, from = strings.TrimSpace(string(data)), "--token-file "+c.TokenFile
	} else if v, ok := os.LookupEnv(tokenEnv); ok {
		token, from = strings.TrimSpace(v), tokenEnv
		if err := os.Unsetenv(tokenEnv); err != nil {
			return "", fmt.Errorf("take %s out of the environment: %w", tokenEnv, err)
		}
	}
	if from == "" {
		return "", nil
	}
	switch {
	case len(token) < minTokenLength:
		return "", &usageErr{fmt.Errorf("the token from %s is %d characters: use at least %d random characters (e.g. openssl rand -hex 32)", from, len(token), minTokenLength)}
	case strings.ContainsAny(token, " \t\r\n"):
		return "", &usageErr{fmt.Errorf("the token from %s holds whitespace: a bearer token is one word", from)}
	}
	return token, nil
}

// checkTokenFileMode refuses a token file that other users of this
// machine can read or change, as ssh refuses such a private key: the token
// may have leaked already, which the user must know rather than have
// dispatch quietly tighten the mode. Windows has no such mode bits.
func checkTokenFileMode(path string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return &usageErr{fmt.Errorf("--token-file: %w", err)}
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return &usageErr{fmt.Errorf("--token-file %s has mode %#o: other users of this machine can read or change the token. Make a new token if it may have leaked, then run chmod 600 %s", path, perm, path)}
	}
	return nil
}

// learnSecrets makes the token a secret to the redactor: it is never
// logged or shown.
func (h *httpListen) learnSecrets(a *app) {
	if h.token != "" {
		a.redactor.LearnEnviron([]string{tokenEnv + "=" + h.token})
	}
}

func (h *httpListen) server(a *app, g *Globals, maxRequest int64, extra []server.ServerOption) (*upstream.HTTPServer, error) {
	spillMax, err := parseLimitFlag("--spill-max", g.SpillMax, "it bounds the result files of one session")
	if err != nil {
		return nil, err
	}
	return upstream.NewHTTPServer(a.svc, buildVersion(), upstream.HTTPOptions{
		Addr:            h.cmd.Listen,
		Token:           h.token,
		MaxSessions:     h.cmd.MaxSessions,
		SessionIdle:     h.cmd.SessionIdle,
		MaxInFlight:     g.MaxInFlight,
		MaxHTTPInFlight: h.cmd.MaxHTTPInFlight,
		MaxRequestBytes: maxRequest,
		NewStore: func() (*spill.Store, error) {
			return spill.Open(spill.Options{Dir: g.SpillDir, MaxBytes: spillMax})
		},
		Relay:         a.conns,
		Logger:        a.log,
		ServerOptions: extra,
	})
}

func (h *httpListen) close() {
	if err := h.listener.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		fmt.Fprintln(os.Stderr, "dispatch: close the listener:", err)
	}
}
