package connections

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Set is every configured server, addressable by alias (c1..cN), config
// name or ID. A new config replaces its servers while it is in use (see
// Update), so every method is safe for concurrent use.
type Set struct {
	opts Options
	// hub carries what servers ask of their client to the agent
	// session (see relay.go); shared by every connection of the set.
	hub *relayHub

	mu        sync.RWMutex
	conns     []*Conn
	byKey     map[string]*Conn
	lastAlias int // the highest N of a cN ever given; never given again
	closed    bool
	retiring  map[*Conn]struct{}
	stop      chan struct{} // closed by Close: retiring connections stop waiting
	retirers  sync.WaitGroup
}

// serverGroup is one server of a config: the configs that share its ID.
type serverGroup struct {
	cfg   ServerConfig // the first, named by the first that has a name, with the filter they share
	names []string     // every config name of it, in order
}

// groupConfigs validates configs and groups those that name the same
// server (same ID), which is connected once: the later ones' names become
// more keys for it. Their secrets are learned by r.
func groupConfigs(configs []ServerConfig, r *Redactor) ([]serverGroup, error) {
	var groups []serverGroup
	byID := make(map[string]int)
	for _, cfg := range configs {
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("server %s: %w", displayName(cfg, len(groups)+1), err)
		}
		r.Learn(cfg)
		id := cfg.ID() // a JSON encoding and a hash: once
		i, dup := byID[id]
		if !dup {
			byID[id] = len(groups)
			groups = append(groups, serverGroup{cfg: cfg})
			i = len(groups) - 1
		} else {
			g := &groups[i]
			if g.cfg.Name == "" {
				// The same server given by --mcp and by name in a config
				// file: list shows the name (the ID does not depend on it).
				g.cfg.Name = cfg.Name
			}
			switch {
			case g.cfg.Tools.IsZero():
				g.cfg.Tools = cfg.Tools
			case !cfg.Tools.IsZero() && !cfg.Tools.samePatterns(g.cfg.Tools):
				return nil, fmt.Errorf("server %s is the same server as %s but has other tool filters (%s and %s): give both the same tools table, or remove one",
					displayName(cfg, i+1), displayName(g.cfg, i+1), cfg.Tools.Entry, g.cfg.Tools.Entry)
			}
		}
		groups[i].cfg.Expose = unionExpose(groups[i].cfg.Expose, cfg.Expose, dup)
		if cfg.Name != "" {
			groups[i].names = append(groups[i].names, cfg.Name)
		}
	}
	return groups, nil
}

// NewSet builds connections for configs in order. A config equal to an
// earlier one (same ID) is connected once; its name becomes another key for
// the first.
func NewSet(configs []ServerConfig, opts Options) (*Set, error) {
	opts = opts.withDefaults()
	groups, err := groupConfigs(configs, opts.Redactor)
	if err != nil {
		return nil, err
	}
	s := &Set{opts: opts, hub: &relayHub{}, retiring: make(map[*Conn]struct{}), stop: make(chan struct{})}
	s.conns = newConns(groups, opts, s.hub)
	s.lastAlias = len(s.conns)
	if s.byKey, err = keysFor(s.conns, groups); err != nil {
		return nil, err
	}
	return s, nil
}

// newConns builds the connections of groups, aliased c1, c2, ... in order.
// Each reads and masks its cached catalog, hundreds of kilobytes for a
// large server, so they are built concurrently: a one-shot list or search
// spent most of its time here, one server after another. GOMAXPROCS
// builders (this goroutine one of them) each take the next server until
// none is left, rather than a goroutine per server: each new goroutine's
// stack grew, copied frame by frame, to decode a catalog, and that cost a
// warm search over 16 servers more than the goroutines saved.
func newConns(groups []serverGroup, opts Options, hub *relayHub) []*Conn {
	conns := make([]*Conn, len(groups))
	var next atomic.Int64
	build := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(groups) {
				return
			}
			conns[i] = newConn("c"+strconv.Itoa(i+1), groups[i].cfg, opts, hub)
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(groups)) - 1 {
		wg.Go(build)
	}
	build()
	wg.Wait()
	return conns
}

// keysFor maps every alias, ID and config name to its connection; conns
// and groups are in the same order.
func keysFor(conns []*Conn, groups []serverGroup) (map[string]*Conn, error) {
	byKey := make(map[string]*Conn, 3*len(conns))
	// Aliases first, so that no config name can shadow one.
	for _, c := range conns {
		byKey[c.Alias] = c
		byKey[c.ID] = c
	}
	for i, g := range groups {
		for _, name := range g.names {
			if other, ok := byKey[name]; ok && other != conns[i] {
				return nil, fmt.Errorf("server name %q clashes with %s: rename it", name, other.Alias)
			}
			byKey[name] = conns[i]
		}
	}
	return byKey, nil
}

func displayName(cfg ServerConfig, n int) string {
	if cfg.Name != "" {
		return strconv.Quote(cfg.Name)
	}
	return "c" + strconv.Itoa(n)
}

// Conns returns the connections in alias order. The slice is the caller's.
func (s *Set) Conns() []*Conn {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]*Conn(nil), s.conns...)
}

// AppendConns is Conns appended to dst: a caller on a call's path passes
// a slice of its own, and allocates nothing when it is large enough.
func (s *Set) AppendConns(dst []*Conn) []*Conn {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append(dst, s.conns...)
}

// Options returns the options the set was built with.
func (s *Set) Options() Options { return s.opts }

// Lookup finds a connection by alias, name or ID.
func (s *Set) Lookup(key string) (*Conn, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if c, ok := s.byKey[key]; ok {
		return c, nil
	}
	if c, ok := s.byKey[strings.ToLower(key)]; ok {
		return c, nil
	}
	keys := make([]string, 0, len(s.conns))
	for _, c := range s.conns {
		k := c.Alias
		if c.Config.Name != "" {
			k += " (" + c.Config.Name + ")"
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w %q: no servers are configured", ErrUnknownConnection, key)
	}
	return nil, fmt.Errorf("%w %q: use one of %s", ErrUnknownConnection, key, strings.Join(keys, ", "))
}

// ConnectAll starts every server concurrently, each within its own time
// limit. Failures are recorded on each connection (see State) and do not
// stop the others.
func (s *Set) ConnectAll(ctx context.Context) {
	each(s.Conns(), func(c *Conn) {
		if err := c.Connect(ctx); err == nil {
			if _, err := c.Tools(ctx, false); err != nil {
				c.log.Warn("list tools", "error", err.Error())
			}
		}
	})
}

// Close stops every server concurrently, those a new config removed
// included, and waits for all of them.
func (s *Set) Close() {
	s.mu.Lock()
	all := append([]*Conn(nil), s.conns...)
	for c := range s.retiring {
		all = append(all, c)
	}
	if !s.closed {
		s.closed = true
		close(s.stop)
	}
	s.mu.Unlock()
	// Every connection stops at once, and all are waited for within one
	// closeWaitLimit: a one-shot command's connections that never
	// started a server cost no goroutine or timer.
	stops := make([]<-chan struct{}, len(all))
	for i, c := range all {
		stops[i] = c.beginClose()
	}
	awaitClosed(all, stops)
	s.retirers.Wait()
}

func each(conns []*Conn, f func(*Conn)) {
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { f(c) })
	}
	wg.Wait()
}

// aliasNumber is N of alias cN.
func aliasNumber(alias string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(alias, "c"))
	if err != nil {
		return 0
	}
	return n
}

func sortByAlias(conns []*Conn) {
	sort.SliceStable(conns, func(i, j int) bool { return aliasNumber(conns[i].Alias) < aliasNumber(conns[j].Alias) })
}
