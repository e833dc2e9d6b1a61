package change

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Leftover is one delegation's isolation still on disk: its branch in the
// person's repository, its worktree or snapshot copy, its shadow
// repository — whichever of them remain.
type Leftover struct {
	Board  string `json:"board"`
	Note   string `json:"note"`
	Branch string `json:"branch"`  // "" when no branch remains
	Dir    string `json:"dir"`     // the worktree or copy, "" when gone
	GitDir string `json:"git_dir"` // a snapshot's shadow repository, "" when none
}

// Leftovers lists the isolations of the repository holding workspace (its
// yagent/<board>/<note> branches) and those under root (worktrees, copies,
// shadow repositories), one entry per board and note, sorted.
func Leftovers(ctx context.Context, workspace, root string) ([]Leftover, error) {
	byName := map[[2]string]*Leftover{}
	get := func(board, note string) *Leftover {
		k := [2]string{board, note}
		if byName[k] == nil {
			byName[k] = &Leftover{Board: board, Note: note}
		}
		return byName[k]
	}
	if top, err := repoTop(ctx, workspace); err == nil {
		out, err := git(ctx, at{dir: top}, nil, "for-each-ref", "--format=%(refname:short)", "refs/heads/yagent/")
		if err != nil {
			return nil, err
		}
		for _, b := range strings.Fields(string(out)) {
			parts := strings.Split(strings.TrimPrefix(b, "yagent/"), "/")
			if len(parts) == 2 {
				get(parts[0], parts[1]).Branch = b
			}
		}
	} else if !errors.Is(err, ErrNotRepository) {
		return nil, err
	}
	boards, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("list %s: %w", root, err)
	}
	for _, b := range boards {
		if !b.IsDir() {
			continue
		}
		notes, err := os.ReadDir(filepath.Join(root, b.Name()))
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", filepath.Join(root, b.Name()), err)
		}
		for _, n := range notes {
			if !n.IsDir() {
				continue
			}
			p := filepath.Join(root, b.Name(), n.Name())
			if note, ok := strings.CutSuffix(n.Name(), ".git"); ok {
				get(b.Name(), note).GitDir = p
			} else {
				get(b.Name(), n.Name()).Dir = p
			}
		}
	}
	var out []Leftover
	for _, l := range byName {
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Board != out[j].Board {
			return out[i].Board < out[j].Board
		}
		return out[i].Note < out[j].Note
	})
	return out, nil
}

// Collect removes the isolations keep does not claim (keep(board, note)
// is false: no note or session refers to them) and returns them.
func Collect(ctx context.Context, workspace, root string, keep func(board, note string) bool) ([]Leftover, error) {
	all, err := Leftovers(ctx, workspace, root)
	if err != nil {
		return nil, err
	}
	var gone []Leftover
	var errs []error
	for _, l := range all {
		if keep(l.Board, l.Note) {
			continue
		}
		c := &Change{Branch: l.Branch, GitDir: l.GitDir}
		if l.Branch == "" { // nothing in the person's repository: files only
			if err := errors.Join(os.RemoveAll(l.Dir), os.RemoveAll(l.GitDir)); err != nil {
				errs = append(errs, err)
				continue
			}
		} else if err := Discard(ctx, workspace, c, l.Dir); err != nil {
			errs = append(errs, err)
			continue
		}
		gone = append(gone, l)
	}
	return gone, errors.Join(errs...)
}

// DropSession removes the checkpoints of a session (names under
// "<session>/") and the objects only they held.
func (c *Checkpoints) DropSession(ctx context.Context, session string) error {
	if _, err := c.ref(session + "/x"); err != nil {
		return err
	}
	out, err := git(ctx, c.at(), nil, "for-each-ref", "--format=%(refname)", "refs/checkpoints/"+session+"/")
	if err != nil {
		return err
	}
	for _, r := range strings.Fields(string(out)) {
		if _, err := git(ctx, c.at(), nil, "update-ref", "-d", r); err != nil {
			return fmt.Errorf("drop the checkpoints of %s: %w", session, err)
		}
	}
	if _, err := git(ctx, c.at(), nil, "gc", "--quiet", "--prune=now"); err != nil {
		return fmt.Errorf("drop the checkpoints of %s: %w", session, err)
	}
	return nil
}

// Names lists the checkpoints taken (all sessions'), sorted.
func (c *Checkpoints) Names(ctx context.Context) ([]string, error) {
	out, err := git(ctx, c.at(), nil, "for-each-ref", "--format=%(refname)", "refs/checkpoints/")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, r := range strings.Fields(string(out)) {
		names = append(names, strings.TrimPrefix(r, "refs/checkpoints/"))
	}
	sort.Strings(names)
	return names, nil
}
