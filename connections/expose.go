package connections

import (
	"errors"
	"fmt"
	"slices"
)

// MaxExposedTools bounds a server's expose list: it names tools one by
// one, and an agent's tool list is no place for thousands.
const MaxExposedTools = 1000

func validateExpose(names []string) error {
	if len(names) > MaxExposedTools {
		return fmt.Errorf("expose names %d tools, more than %d (MaxExposedTools)", len(names), MaxExposedTools)
	}
	for _, name := range names {
		if name == "" {
			return errors.New(`expose holds an empty tool name: write each tool's name, e.g. expose = ["read_file"]`)
		}
	}
	return nil
}

// unionExpose merges the expose lists of two entries for one server (same
// ID): each entry's tools are shown.
func unionExpose(have, more []string, dup bool) []string {
	if !dup {
		return have
	}
	out := slices.Clone(have)
	for _, name := range more {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// Exposed returns the tools the config asks to show the agent under their
// own names, as it is now: a new config may have changed it since Config
// was read.
func (c *Conn) Exposed() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.expose)
}

// setExpose takes a new config's expose list: nothing to restart.
func (c *Conn) setExpose(names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expose = slices.Clone(names)
}
