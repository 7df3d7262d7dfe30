package connections

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Set is every configured server, addressable by alias (c1..cN), config
// name or ID.
type Set struct {
	conns []*Conn
	byKey map[string]*Conn
	opts  Options
	hub   *relayHub
}

// NewSet builds connections for configs in order. A config equal to an
// earlier one (same ID) is connected once; its name becomes another key for
// the first.
func NewSet(configs []ServerConfig, opts Options) (*Set, error) {
	opts = opts.withDefaults()
	s := &Set{byKey: make(map[string]*Conn), opts: opts, hub: &relayHub{}}
	byID := make(map[string]*Conn)
	type namedConn struct {
		name string
		conn *Conn
	}
	var names []namedConn // in declaration order, duplicates' names included
	for _, cfg := range configs {
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("server %s: %w", displayName(cfg, len(s.conns)+1), err)
		}
		opts.Redactor.Learn(cfg)
		c, dup := byID[cfg.ID()]
		if !dup {
			c = newConn("c"+strconv.Itoa(len(s.conns)+1), cfg, opts, s.hub)
			byID[c.ID] = c
			s.conns = append(s.conns, c)
		} else if c.Config.Name == "" {
			// The same server given by --mcp and by name in a config file:
			// list shows the name (the ID does not depend on it).
			c.Config.Name = cfg.Name
		}
		if cfg.Name != "" {
			names = append(names, namedConn{cfg.Name, c})
		}
	}
	// Aliases first, so that no config name can shadow one.
	for _, c := range s.conns {
		s.byKey[c.Alias] = c
		s.byKey[c.ID] = c
	}
	for _, n := range names {
		if err := s.addKey(n.name, n.conn); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func displayName(cfg ServerConfig, n int) string {
	if cfg.Name != "" {
		return strconv.Quote(cfg.Name)
	}
	return "c" + strconv.Itoa(n)
}

func (s *Set) addKey(name string, c *Conn) error {
	if other, ok := s.byKey[name]; ok && other != c {
		return fmt.Errorf("server name %q clashes with %s: rename it", name, other.Alias)
	}
	s.byKey[name] = c
	return nil
}

// Conns returns the connections in alias order.
func (s *Set) Conns() []*Conn { return s.conns }

// Options returns the options the set was built with.
func (s *Set) Options() Options { return s.opts }

// Lookup finds a connection by alias, name or ID.
func (s *Set) Lookup(key string) (*Conn, error) {
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
	s.each(func(c *Conn) {
		if err := c.Connect(ctx); err == nil {
			if _, err := c.Tools(ctx, false); err != nil {
				c.log.Warn("list tools", "error", err.Error())
			}
		}
	})
}

// Close stops every server concurrently and waits for all of them.
func (s *Set) Close() {
	s.each((*Conn).Close)
}

func (s *Set) each(f func(*Conn)) {
	var wg sync.WaitGroup
	for _, c := range s.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(c)
		}()
	}
	wg.Wait()
}
