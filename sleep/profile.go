package sleep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/yagent/yagent/agents"
)

// Errors of a person's request about curation (the CLI maps them to exit
// code 2).
var (
	// ErrOff is returned when the configuration switches curation off.
	ErrOff = errors.New("tool curation is off (chat_sleep.enabled: false)")
	// ErrUnknownTool is wrapped by a hand edit naming a tool the session
	// cannot reach.
	ErrUnknownTool = errors.New("not a tool of this session")
)

// Overview is what a session sees by default (`yagent tools profile`):
// the stored profile, the visible entries expanded to tool names, and
// how many tools are in context and reachable under the gates and access
// (--toolset) of the current cycle (nil before the session ran a turn).
// The counts are those of the session's requests: InContext is what the
// director declares (TurnSplit, the same function), Reachable what it
// could; neither counts tool_find and tool_load, the curation's own
// machinery, so with nothing hidden the two are equal.
type Overview struct {
	Session   string   `json:"session"`
	Visible   []string `json:"visible"`
	Effective []string `json:"effective"`
	Pinned    []string `json:"pinned"`
	Curated   bool     `json:"curated"`
	InContext *int     `json:"in_context"`
	Reachable *int     `json:"reachable"`
}

// nameable are the tools a person may name in a hand edit: every tool the
// session reaches under the widest gates.
func (c *Curator) nameable() []*agents.Tool {
	return c.Registry.Reachable(agents.Gates{Master: true, NotesIndexed: true})
}

// Overview reads a session's profile and what it amounts to.
func (c *Curator) Overview(ctx context.Context, chatID string) (Overview, error) {
	p, err := c.Store.Profile(ctx, chatID)
	if err != nil {
		return Overview{}, err
	}
	v := Overview{Session: chatID, Visible: p.Visible, Pinned: p.Pinned, Curated: p.Curated, Effective: []string{}}
	if p.Curated {
		eff := append(append(slices.Clone(p.Visible), c.Config.Tools.Core...), p.Pinned...)
		for name := range Expand(eff, c.nameable(), c.Toolsets) {
			v.Effective = append(v.Effective, name)
		}
		slices.Sort(v.Effective)
	}
	env, ok, err := c.Store.LoadEnv(ctx, chatID)
	if err != nil {
		return Overview{}, err
	}
	if ok {
		var kind string
		if err := c.Store.DB.QueryRowContext(ctx, `SELECT kind FROM chats WHERE id = ?`, chatID).Scan(&kind); err != nil {
			return Overview{}, fmt.Errorf("tool profile of %s: %w", chatID, err)
		}
		applies := env.Access == "" && !slices.Contains(c.Config.SkipKinds, kind)
		reach := c.reachable(env.Gates, env.Access)
		in, _ := TurnSplit(p, reach, c.Config.Tools.Core, c.Toolsets, applies)
		r, i := countTools(reach), countTools(in)
		v.Reachable, v.InContext = &r, &i
	}
	return v, nil
}

// countTools counts tools other than the curation's own (Always).
func countTools(tools []*agents.Tool) int {
	n := 0
	for _, t := range tools {
		if !slices.Contains(Always, t.Name) {
			n++
		}
	}
	return n
}

// Stats is the statistics table the curation model would see, over the
// given windows in days (nil: chat_sleep.tools.windows).
func (c *Curator) Stats(ctx context.Context, chatID string, windows []int) (Table, error) {
	if windows == nil {
		windows = c.Config.Tools.Windows
	}
	p, err := c.Store.Profile(ctx, chatID)
	if err != nil {
		return Table{}, err
	}
	return c.Store.Stats(ctx, chatID, agents.Names(c.nameable()), windows, c.Config.Tools.ThinTurns, p.LastCurated)
}

// Pin pins the named tools (unpins them when on is false) so no sleep
// hides them; a pin alone does not start curation.
func (c *Curator) Pin(ctx context.Context, chatID string, names []string, on bool) (Profile, error) {
	return c.edit(ctx, chatID, names, func(p *Profile) {
		for _, n := range names {
			i := slices.Index(p.Pinned, n)
			if on && i < 0 {
				p.Pinned = append(p.Pinned, n)
			}
			if !on && i >= 0 {
				p.Pinned = slices.Delete(p.Pinned, i, i+1)
			}
		}
	})
}

// SetVisible sets a session's visible entries by hand (tool names,
// set:NAME, family:NAME); core and pinned tools stay.
func (c *Curator) SetVisible(ctx context.Context, chatID string, entries []string) (Profile, error) {
	return c.edit(ctx, chatID, entries, func(p *Profile) {
		p.Visible, p.Curated = slices.Clone(entries), true
	})
}

// Reset removes a session's curation: it sees every reachable tool again
// (pins stay).
func (c *Curator) Reset(ctx context.Context, chatID string) (Profile, error) {
	if err := c.Store.ResetProfile(ctx, chatID); err != nil {
		return Profile{}, err
	}
	return c.Store.Profile(ctx, chatID)
}

// Edit applies one hand edit of `yagent tools pin|set|reset`: "pin" pins
// names (unpins them when !on), "set" makes them the visible entries, any
// other edit resets.
func (c *Curator) Edit(ctx context.Context, chatID, edit string, names []string, on bool) (Profile, error) {
	switch edit {
	case "pin":
		return c.Pin(ctx, chatID, names, on)
	case "set":
		return c.SetVisible(ctx, chatID, names)
	}
	return c.Reset(ctx, chatID)
}

// EditText is the line `yagent tools pin|set|reset` prints: the profile an
// edit left.
func (p Profile) EditText(chatID string) string {
	return fmt.Sprintf("profile of %s: curated %v, visible %s, pinned %s (from the next turn)\n", chatID, p.Curated, cmp.Or(strings.Join(p.Visible, ", "), "-"), cmp.Or(strings.Join(p.Pinned, ", "), "-"))
}

// edit checks the entries a person named, applies change to the stored
// profile and saves it; it applies from the session's next turn.
func (c *Curator) edit(ctx context.Context, chatID string, entries []string, change func(*Profile)) (Profile, error) {
	names := agents.Names(c.nameable())
	for _, e := range entries {
		if !slices.Contains(names, e) && !strings.HasPrefix(e, "set:") && !strings.HasPrefix(e, "family:") {
			return Profile{}, fmt.Errorf("%q is %w (yagent tools stats lists them)", e, ErrUnknownTool)
		}
	}
	p, err := c.Store.Profile(ctx, chatID)
	if err != nil {
		return Profile{}, err
	}
	change(&p)
	if err := c.Store.SaveProfile(ctx, chatID, p); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// Text is `yagent tools profile` for a person.
func (v Overview) Text() string {
	dash := func(s []string) string { return cmp.Or(strings.Join(s, ", "), "-") }
	s := fmt.Sprintf("session:    %s\ncurated:    %v\nvisible:    %s\npinned:     %s\n", v.Session, v.Curated, dash(v.Visible), dash(v.Pinned))
	if v.Reachable == nil {
		return s + "in context: - (the session has not run a turn yet)\nreachable:  -\n"
	}
	return s + fmt.Sprintf("in context: %d\nreachable:  %d\n", *v.InContext, *v.Reachable)
}
