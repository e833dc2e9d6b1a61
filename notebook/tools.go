package notebook

import (
	"context"
	"embed"
	"fmt"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/prompt"
)

//go:embed prompts/*.md
var promptFS embed.FS

// Rules are the notebook's rules for the lead's stable prefix (never for a
// sub-agent).
func Rules() string { return prompt.Render(promptFS, "rules", nil) }

// Event is a write to the notebook, shown to the person as its own line.
type Event struct {
	Action      string // saved, created, deleted, pinned, unpinned
	Name        string
	Description string
	Body        string
	PrevBody    string
}

// Arguments of the notebook tools (schemas.json has their descriptions).
type (
	saveIn struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Body        string `json:"body"`
	}
	nameIn struct {
		Name string `json:"name"`
	}
	pinIn struct {
		Name   string `json:"name"`
		Pinned bool   `json:"pinned"`
	}
)

// Tools returns chat_note_save, chat_note_read, chat_note_delete and
// chat_note_pin: family chat, LeadOnly + MasterOnly (a sub-agent's turn is
// also a master turn, so MasterOnly alone would not keep them out), Quiet,
// results Uneventful; chat_note_read is also IndexedNotesOnly, a registry
// gate, so nothing can reach it in inline mode. onWrite sees every write.
func (b *Book) Tools(onWrite func(Event)) []*agents.Tool {
	const flags = agents.LeadOnly | agents.MasterOnly | agents.Quiet | agents.Uneventful
	emit := func(e Event) {
		if onWrite != nil {
			onWrite(e)
		}
	}
	return []*agents.Tool{
		agents.NewTool("chat_note_save", "chat", flags|agents.Writes, func(ctx context.Context, _ *agents.Call, a saveIn) (agents.Result, error) {
			if err := b.guardOverwrite(ctx, a.Name); err != nil {
				return result(agents.Result{}, err)
			}
			res, err := b.Save(ctx, a.Name, a.Description, a.Body)
			if err != nil {
				return result(agents.Result{}, err)
			}
			action := "saved"
			if res.Created {
				action = "created"
			}
			emit(Event{Action: action, Name: res.Note.Name, Description: res.Note.Description, Body: res.Note.Body, PrevBody: res.Note.PrevBody})
			return agents.Result{Content: fmt.Sprintf("%s note %s (%d characters)", action, a.Name, len([]rune(a.Body))), Summary: action + " " + a.Name}, nil
		}),
		agents.NewTool("chat_note_read", "chat", flags|agents.IndexedNotesOnly, func(ctx context.Context, _ *agents.Call, a nameIn) (agents.Result, error) {
			n, err := b.Get(ctx, a.Name)
			if err != nil {
				return result(agents.Result{}, err)
			}
			b.mu.Lock()
			if b.read != nil {
				b.read[a.Name] = true
			}
			b.mu.Unlock()
			return agents.Result{Content: fmt.Sprintf("## %s | %s\n%s", n.Name, n.Description, n.Body), Summary: "read " + n.Name}, nil
		}),
		agents.NewTool("chat_note_delete", "chat", flags|agents.Writes, func(ctx context.Context, _ *agents.Call, a nameIn) (agents.Result, error) {
			n, err := b.Delete(ctx, a.Name)
			if err != nil {
				return result(agents.Result{}, err)
			}
			emit(Event{Action: "deleted", Name: n.Name, Description: n.Description, PrevBody: n.Body})
			return agents.Result{Content: "deleted note " + n.Name, Summary: "deleted " + n.Name}, nil
		}),
		agents.NewTool("chat_note_pin", "chat", flags|agents.Writes, func(ctx context.Context, _ *agents.Call, a pinIn) (agents.Result, error) {
			n, err := b.Pin(ctx, a.Name, a.Pinned)
			if err != nil {
				return result(agents.Result{}, err)
			}
			action := "pinned"
			if !a.Pinned {
				action = "unpinned"
			}
			emit(Event{Action: action, Name: n.Name, Description: n.Description, Body: n.Body, PrevBody: n.Body})
			return agents.Result{Content: action + " note " + n.Name, Summary: action + " " + n.Name}, nil
		}),
	}
}

// guardOverwrite refuses, in index mode, to overwrite a note the model has
// not read in this turn: it sees only the description there and would
// replace a body it never read.
func (b *Book) guardOverwrite(ctx context.Context, name string) error {
	b.mu.Lock()
	mode, read := b.mode, b.read[name]
	b.mu.Unlock()
	if mode != Index || read {
		return nil
	}
	if _, err := b.Get(ctx, name); err != nil {
		return nil // a new note
	}
	return refuse("note %s exists and you have not read it in this turn: chat_note_read %s first, then save the merged text", name, name)
}

// result turns a refusal into a tool result for the model; other errors
// abort the turn.
func result(r agents.Result, err error) (agents.Result, error) {
	if IsRefusal(err) {
		return agents.ErrorResult("%v", err), nil
	}
	return r, err
}
