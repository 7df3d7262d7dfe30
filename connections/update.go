package connections

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Changes says what Set.Update did, by "alias (name)".
type Changes struct {
	Added      []string // servers new to the config
	Removed    []string // servers gone from it
	Restarted  []string // servers whose config changed: the old one is retired, a new one takes its alias
	Refiltered []string // servers whose tool filter alone changed: kept running
	Reexposed  []string // servers whose expose list changed: kept running
}

// Empty reports whether the new config changed no server.
func (ch Changes) Empty() bool {
	return len(ch.Added)+len(ch.Removed)+len(ch.Restarted)+len(ch.Refiltered)+len(ch.Reexposed) == 0
}

func (ch Changes) String() string {
	var parts []string
	for _, p := range []struct {
		what  string
		which []string
	}{{"added", ch.Added}, {"removed", ch.Removed}, {"restarted", ch.Restarted}, {"refiltered", ch.Refiltered}, {"re-exposed", ch.Reexposed}} {
		if len(p.which) > 0 {
			parts = append(parts, p.what+" "+strings.Join(p.which, ", "))
		}
	}
	if len(parts) == 0 {
		return "no server changed"
	}
	return strings.Join(parts, "; ")
}

// ErrSetClosed is Update's answer once the set is closed.
var ErrSetClosed = errors.New("the set of servers is closed")

// Update replaces the set's servers with those of configs, touching only
// what changed:
//   - a server with the same ID and name is kept as it is, alias and
//     running process included; a new tool filter applies at once;
//   - a server whose config changed under the same name is restarted: a
//     new connection takes its alias, and the old one is retired;
//   - a new server gets the next alias never given in this set (c1..cN
//     of the first config, then cN+1 ...), so an alias never comes to
//     mean another server; a renamed server counts as removed and added;
//   - a removed server is retired.
//
// A retired connection keeps serving the calls already in flight on it,
// for at most Options.RetireGrace (or its own longer call timeout), and
// is then closed. An invalid config changes nothing and returns the error.
func (s *Set) Update(configs []ServerConfig) (Changes, error) {
	groups, err := groupConfigs(configs, s.opts.Redactor)
	if err != nil {
		return Changes{}, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return Changes{}, ErrSetClosed
	}
	oldByID := make(map[string]*Conn, len(s.conns))
	oldByName := make(map[string]*Conn, len(s.conns))
	for _, c := range s.conns {
		oldByID[c.ID] = c
		if c.Config.Name != "" {
			oldByName[c.Config.Name] = c
		}
	}
	var (
		ch       Changes
		conns    = make([]*Conn, 0, len(groups))
		kept     = make(map[*Conn]bool, len(groups))
		replaced = make(map[*Conn]bool)
		// successors are the connections restarted under the alias of one
		// with subscriptions, started once it is retired.
		successors = make(map[*Conn]*Conn)
		created    []*Conn
		lastAlias  = s.lastAlias
	)
	for _, g := range groups {
		if c := oldByID[g.cfg.ID()]; c != nil && c.Config.Name == g.cfg.Name && !kept[c] {
			kept[c] = true
			if old := c.Filter(); !old.samePatterns(g.cfg.Tools) {
				ch.Refiltered = append(ch.Refiltered, label(c))
			}
			c.setFilter(g.cfg.Tools)
			if !slices.Equal(c.Exposed(), g.cfg.Expose) {
				ch.Reexposed = append(ch.Reexposed, label(c))
			}
			c.setExpose(g.cfg.Expose)
			conns = append(conns, c)
			continue
		}
		old := oldByName[g.cfg.Name]
		restart := g.cfg.Name != "" && old != nil && old.ID != g.cfg.ID() && !replaced[old]
		var alias string
		if restart {
			replaced[old] = true
			alias = old.Alias
		} else {
			lastAlias++
			alias = "c" + strconv.Itoa(lastAlias)
		}
		c := newConn(alias, g.cfg, s.opts, s.hub)
		if restart && c.inheritSubscriptions(old) {
			successors[old] = c
		}
		created = append(created, c)
		conns = append(conns, c)
		if restart {
			ch.Restarted = append(ch.Restarted, label(c))
		} else {
			ch.Added = append(ch.Added, label(c))
		}
	}
	byKey, err := keysFor(conns, groups)
	if err != nil {
		s.mu.Unlock()
		each(created, (*Conn).Close) // never started: nothing to wait for
		return Changes{}, err
	}
	var retired []*Conn
	for _, c := range s.conns {
		if kept[c] {
			continue
		}
		retired = append(retired, c)
		s.retiring[c] = struct{}{}
		if !replaced[c] {
			ch.Removed = append(ch.Removed, label(c))
		}
	}
	sortByAlias(conns)
	s.conns, s.byKey, s.lastAlias = conns, byKey, lastAlias
	for _, c := range retired {
		s.retirers.Go(func() {
			s.retire(c)
			if next := successors[c]; next != nil {
				next.startForSubscriptions()
			}
		})
	}
	s.mu.Unlock()
	return ch, nil
}

// retire closes c once its calls in flight end, within its grace, or at
// once when the set closes.
func (s *Set) retire(c *Conn) {
	grace := max(s.opts.RetireGrace, c.Config.Timeout)
	c.retire(grace, s.stop)
	s.mu.Lock()
	delete(s.retiring, c)
	s.mu.Unlock()
}

func label(c *Conn) string {
	if c.Config.Name != "" {
		return c.Alias + " (" + c.Config.Name + ")"
	}
	return c.Alias
}
