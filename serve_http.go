package main

import (
	"errors"
	"fmt"
	"io"
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
	for _, name := range c.AllowHost {
		if name == "" || strings.ContainsAny(name, "/@ \t") || (strings.Contains(name, ":") && net.ParseIP(strings.Trim(name, "[]")) == nil) {
			return nil, &usageErr{fmt.Errorf("--allow-host %q is not a host name: give the bare name clients connect by, without scheme, port or path (e.g. --allow-host myhost.example)", name)}
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
		data, err := readPrivateFile(c.TokenFile)
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

// maxTokenFileBytes bounds what is read of --token-file: a token is one
// short word, and a wrong path must not load a large file into memory.
const maxTokenFileBytes = 4 << 10

// readPrivateFile reads a file holding a secret, refusing it when other
// users may read it too (as ssh refuses such a key): the secret may
// already be theirs. Windows has no such mode bits to check.
func readPrivateFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if perm := info.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return nil, fmt.Errorf("%s can be read or changed by other users (mode %04o): the token must be yours alone. Make a new token if it may have leaked, then run chmod 600 %s", path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxTokenFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes: it should hold only the token", path, maxTokenFileBytes)
	}
	return data, nil
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
	// The port listened on, not the one asked for: with port 0 it is
	// known only now, and an Origin must name it.
	addr := h.cmd.Listen
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if _, port, err := net.SplitHostPort(h.listener.Addr().String()); err == nil {
			addr = net.JoinHostPort(host, port)
		}
	}
	if h.token == "" && !strings.HasPrefix(h.cmd.Listen, upstream.UnixPrefix) {
		// Loopback keeps other machines out, not other users of this one;
		// a unix socket checks who connects.
		a.log.Warn("listening on loopback TCP without a token: any user of this machine can use your servers through it; add --token-file FILE, or listen on unix:PATH (yours alone)", "address", h.cmd.Listen)
	}
	return upstream.NewHTTPServer(a.svc, buildVersion(), upstream.HTTPOptions{
		Addr:            addr,
		AllowHosts:      h.cmd.AllowHost,
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
