package notebook

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/yagent/yagent/internal/prompt"
	"github.com/yagent/yagent/llm"
)

// RebuildOptions configure a rebuild.
type RebuildOptions struct {
	Client llm.Client
	Model  string
	// Summary is the session's latest compaction summary, given read-only.
	Summary string
	// Logf receives what the checks cut or restored.
	Logf func(format string, args ...any)
	// Turn is the turn just finished. A rebuild that failed backs off: the
	// next one is tried only 2, 4, 8… (at most 64) turns later, counted in
	// the state database so one-shot resumes back off too. 0 = no backoff.
	Turn int
	// Spend, when set, books each model call as it returns: one request
	// with that call's tokens (a rebuild and its stricter retry are two;
	// a call that failed after it was billed counts too). RebuildResult's
	// Usage is the sum.
	Spend func(llm.Usage)
}

// RebuildResult says what a rebuild did.
type RebuildResult struct {
	Rebuilt                  bool
	BeforeChars, BeforeNotes int
	AfterChars, AfterNotes   int
	Attempts                 int
	Restored                 []string // pinned notes the model dropped, put back verbatim
	Usage                    llm.Usage
	// Deferred is true when earlier failures put this turn inside the
	// backoff: no model call was made. RetryTurn is the first turn that
	// tries again (also set after a failure).
	Deferred  bool
	RetryTurn int
}

// maxBackoffTurns caps the rebuild's backoff.
const maxBackoffTurns = 64

// ErrRebuildRejected is returned when both attempts failed the checks; the
// old notebook is kept.
var ErrRebuildRejected = errors.New("notebook rebuild rejected; the old notebook is kept")

// Rebuild rewrites an oversized notebook with one model call (no tools):
// input all notes plus the compaction summary framed read-only, output
// "## name | description" blocks aimed at compact_target_chars and
// max_notes. Every check of the seed runs before the swap; on failure the
// old notebook stays and one retry is made with a ceiling twice as strict.
// The old notebook is archived before the swap.
func (b *Book) Rebuild(ctx context.Context, o RebuildOptions) (RebuildResult, error) {
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	old, err := b.List(ctx)
	if err != nil {
		return RebuildResult{}, err
	}
	res := RebuildResult{}
	res.BeforeChars, res.BeforeNotes = Size(old)
	if !NeedsRebuild(old, b.cfg) {
		return res, nil
	}
	if o.Turn > 0 {
		var after int
		if err := b.db.QueryRowContext(ctx, `SELECT notes_rebuild_after FROM chats WHERE id = ?`, b.chatID).Scan(&after); err != nil {
			return res, fmt.Errorf("notebook rebuild: %w", err)
		}
		if o.Turn < after {
			res.Deferred, res.RetryTurn = true, after
			return res, nil
		}
	}
	target, maxNotes := b.cfg.CompactTargetChars, b.cfg.MaxNotes
	var lastErr error
	for attempt := 1; attempt <= 2; attempt++ {
		res.Attempts = attempt
		text, usage, err := b.ask(ctx, o, old, target, maxNotes)
		res.Usage.Add(usage)
		if o.Spend != nil && usage.PromptTokens+usage.CompletionTokens > 0 {
			o.Spend(usage)
		}
		if err != nil {
			if ctx.Err() == nil {
				b.backOff(ctx, o.Turn, &res, logf)
			}
			return res, fmt.Errorf("notebook rebuild: %w; the old notebook is kept", err)
		}
		next, restored, err := b.check(old, text, logf)
		if err == nil {
			if err := b.replace(ctx, old, next); err != nil {
				return res, err
			}
			res.Rebuilt, res.Restored = true, restored
			res.AfterChars, res.AfterNotes = Size(next)
			return res, nil
		}
		logf("notebook rebuild attempt %d rejected: %v", attempt, err)
		lastErr = err
		target, maxNotes = target/2, max(maxNotes/2, 1) // one retry, twice as strict
	}
	b.backOff(ctx, o.Turn, &res, logf)
	return res, fmt.Errorf("%w: %v", ErrRebuildRejected, lastErr)
}

// backOff counts a failed rebuild and sets the first turn that may try
// again: 2^failures turns after this one, at most maxBackoffTurns. A
// failure to record it is logged; the next turn then simply tries again.
func (b *Book) backOff(ctx context.Context, turn int, res *RebuildResult, logf func(string, ...any)) {
	if turn <= 0 {
		return
	}
	// One statement: the right-hand sides see the old failure count.
	err := b.db.QueryRowContext(ctx, `UPDATE chats SET notes_rebuild_failures = notes_rebuild_failures + 1,
		notes_rebuild_after = ? + min(1 << min(notes_rebuild_failures + 1, 30), ?) WHERE id = ? RETURNING notes_rebuild_after`,
		turn, maxBackoffTurns, b.chatID).Scan(&res.RetryTurn)
	if err != nil {
		res.RetryTurn = 0
		logf("notebook rebuild: recording the failure: %v", err)
	}
}

func (b *Book) ask(ctx context.Context, o RebuildOptions, old []Note, target, maxNotes int) (string, llm.Usage, error) {
	system := prompt.Render(promptFS, "rebuild", map[string]string{"target_chars": strconv.Itoa(target), "max_notes": strconv.Itoa(maxNotes)})
	var in strings.Builder
	in.WriteString("The notebook now:\n")
	for _, n := range old {
		pin := ""
		if n.Pinned {
			pin = " (pinned)"
		}
		fmt.Fprintf(&in, "\n## %s | %s%s\n%s\n", n.Name, n.Description, pin, strings.TrimRight(n.Body, "\n"))
	}
	if o.Summary != "" {
		in.WriteString("\n--- conversation summary (read-only; do not copy from it) ---\n" + o.Summary + "\n--- end of summary ---\n")
	}
	resp, err := o.Client.Stream(ctx, llm.Request{Model: o.Model, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: in.String()},
	}})
	if err != nil {
		return "", resp.Usage, err
	}
	return resp.Message.Content, resp.Usage, nil
}

var headerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^##\s+(.+?)\s*\|\s*(.*?)\s*$`) })

// parseNotebook reads "## name | description" blocks.
func parseNotebook(text string) []Note {
	var out []Note
	var cur *Note
	var body []string
	flush := func() {
		if cur != nil {
			cur.Body = strings.TrimSpace(strings.Join(body, "\n"))
			out = append(out, *cur)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if m := headerRe().FindStringSubmatch(line); m != nil {
			flush()
			desc := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m[2]), "(pinned)"))
			cur, body = &Note{Name: strings.TrimSpace(m[1]), Description: desc}, nil
			continue
		}
		if cur != nil {
			body = append(body, line)
		}
	}
	flush()
	return out
}

var slugRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9_-]+`) })

// check applies the seed's checks to a model's notebook: at least one note
// parsed; names unique and fields within limits (cut and logged); every
// pinned note present (restored verbatim when dropped); smaller than
// before. It returns the notebook to swap in.
func (b *Book) check(old []Note, text string, logf func(string, ...any)) ([]Note, []string, error) {
	parsed := parseNotebook(text)
	if len(parsed) == 0 {
		return nil, nil, errors.New("no note could be parsed from the answer")
	}
	byName := map[string]Note{}
	for _, n := range old {
		byName[n.Name] = n
	}
	now := b.now().UTC()
	var next []Note
	seen := map[string]bool{}
	for _, n := range parsed {
		name := strings.Trim(slugRe().ReplaceAllString(strings.ToLower(n.Name), "-"), "-")
		if utf8.RuneCountInString(name) > MaxNameChars {
			name = string([]rune(name)[:MaxNameChars])
		}
		if name != n.Name {
			logf("notebook rebuild: name %q cut to %q", n.Name, name)
		}
		if name == "" || seen[name] {
			logf("notebook rebuild: dropped a note with a duplicate or empty name %q", n.Name)
			continue
		}
		seen[name] = true
		if utf8.RuneCountInString(n.Description) > MaxDescriptionChars {
			logf("notebook rebuild: description of %s cut to %d characters", name, MaxDescriptionChars)
			n.Description = string([]rune(n.Description)[:MaxDescriptionChars])
		}
		if n.Description == "" {
			n.Description = name
		}
		if utf8.RuneCountInString(n.Body) > b.cfg.MaxNoteChars {
			logf("notebook rebuild: body of %s cut to %d characters", name, b.cfg.MaxNoteChars)
			n.Body = string([]rune(n.Body)[:b.cfg.MaxNoteChars])
		}
		if n.Body == "" {
			logf("notebook rebuild: dropped %s, its body is empty", name)
			continue
		}
		n.Name, n.Updated, n.New = name, now, true
		if prev, ok := byName[name]; ok {
			// A survivor: its body before the rebuild goes to prev_body. A
			// pin the model rewrote got in without the budget check: it
			// ranks after the pins admitted by it.
			n.Created, n.PrevBody, n.Pinned, n.PinnedAt = prev.Created, prev.Body, prev.Pinned, prev.PinnedAt
			if n.Pinned && n.Body != prev.Body {
				n.PinnedAt = now.Truncate(time.Millisecond)
			}
		} else {
			n.Created, n.PrevBody = now, "" // born in a merge: new
		}
		next = append(next, n)
	}
	var restored []string
	for _, o := range old {
		if o.Pinned && !slices.ContainsFunc(next, func(n Note) bool { return n.Name == o.Name }) {
			next = append(next, o) // verbatim: the same note, not a new one
			restored = append(restored, o.Name)
			logf("notebook rebuild: pinned note %s was dropped; restored verbatim", o.Name)
		}
	}
	if len(next) == 0 {
		return nil, nil, errors.New("no usable note in the answer")
	}
	oldChars, _ := Size(old)
	newChars, _ := Size(next)
	if newChars >= oldChars {
		return nil, nil, fmt.Errorf("the rebuilt notebook is not smaller (%d characters, was %d)", newChars, oldChars)
	}
	slices.SortFunc(next, func(a, b Note) int {
		if a.Pinned != b.Pinned {
			if a.Pinned {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return next, restored, nil
}
