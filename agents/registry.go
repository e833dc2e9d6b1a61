package agents

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

// Registry holds every tool the process knows. Per turn, Reachable applies
// the gates: a gated tool does not exist for that turn — it is not in the
// request and cannot be called or loaded.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]*Tool
}

// NewRegistry returns a registry holding tools.
func NewRegistry(tools ...*Tool) *Registry {
	r := &Registry{tools: map[string]*Tool{}}
	for _, t := range tools {
		r.MustAdd(t)
	}
	return r
}

// Add registers a tool; names are unique.
func (r *Registry) Add(t *Tool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("tool %q registered twice", t.Name)
	}
	r.tools[t.Name] = t
	return nil
}

// MustAdd registers a built-in tool and panics on a duplicate name.
func (r *Registry) MustAdd(t *Tool) {
	if err := r.Add(t); err != nil {
		panic(err)
	}
}

// Get returns a tool by name regardless of gates (for catalogues and tests).
func (r *Registry) Get(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Gates are the facts of one turn that decide which tools exist in it.
type Gates struct {
	// SubAgent is true in a sub-agent's turn: LeadOnly tools are gone.
	SubAgent bool
	// Master is true in a turn the person started: MasterOnly tools need it.
	Master bool
	// NotesIndexed is true while the notebook is in index mode.
	NotesIndexed bool
	// ReadOnly removes every tool flagged Writes.
	ReadOnly bool
	// Allow, when non-nil, is the agent definition's whitelist: tool names,
	// glob patterns over names ("mcp_github__*") or "family:NAME".
	Allow []string
}

// Admits reports whether t exists in a turn with these gates.
func (g Gates) Admits(t *Tool) bool {
	switch {
	case g.SubAgent && t.Flags.Has(LeadOnly):
		return false
	case !g.Master && t.Flags.Has(MasterOnly):
		return false
	case !g.NotesIndexed && t.Flags.Has(IndexedNotesOnly):
		return false
	case g.ReadOnly && t.Flags.Has(Writes):
		return false
	}
	if g.Allow == nil {
		return true
	}
	for _, a := range g.Allow {
		if fam, ok := strings.CutPrefix(a, "family:"); ok {
			if t.Family == fam {
				return true
			}
			continue
		}
		if ok, _ := path.Match(a, t.Name); ok {
			return true
		}
	}
	return false
}

// Reachable returns the tools that pass the gates, sorted by name so the
// request's tool list is byte-identical from call to call.
func (r *Registry) Reachable(g Gates) []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*Tool
	for _, t := range r.tools {
		if g.Admits(t) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Without returns a registry of the same tools but names.
func (r *Registry) Without(names ...string) *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	w := &Registry{tools: make(map[string]*Tool, len(r.tools))}
	for name, t := range r.tools {
		if !slices.Contains(names, name) {
			w.tools[name] = t
		}
	}
	return w
}

// Guarded returns a registry of the same tools, each running before(ctx,
// name) first: a non-nil error aborts the call as an infrastructure
// failure (a queue worker's attempt that is no longer current).
func (r *Registry) Guarded(before func(ctx context.Context, name string) error) *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g := &Registry{tools: make(map[string]*Tool, len(r.tools))}
	for name, t := range r.tools {
		c := *t
		run := t.run
		c.run = func(ctx context.Context, call *Call) (Result, error) {
			if err := before(ctx, c.Name); err != nil {
				return Result{}, err
			}
			return run(ctx, call)
		}
		g.tools[name] = &c
	}
	return g
}
