package agents

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/yagent/yagent/internal/atomicfile"
	"github.com/yagent/yagent/internal/linediff"
)

// Limits of the file tools.
const (
	readMaxBytes  = 256 << 10 // per call
	writeMaxBytes = 4 << 20
	lineMaxRunes  = 2000
)

// Arguments of the file tools (schemas.json has their descriptions).
type (
	readFileIn struct {
		Path   string `json:"path"`
		Offset int    `json:"offset,omitempty" default:"1"`
		Limit  int    `json:"limit,omitempty" default:"400"`
	}
	listDirIn struct {
		Path string `json:"path,omitempty"`
	}
	writeFileIn struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	editFileIn struct {
		Path string `json:"path"`
		Old  string `json:"old"`
		New  string `json:"new"`
	}
)

// FSTools returns read_file, list_dir, glob, grep, write_file and edit_file
// over the workspace, or over the run's own (WithWorkspace). Write tools report the files they produced as
// Result.Artifacts (the system's record of artifacts). A write to a
// protected path (Workspace.Protected) is always asked about; under the
// untrusted policy every write is, with the change shown as a diff.
func FSTools(w *Workspace, policy ShellPolicy) []*Tool {
	return []*Tool{
		NewTool("read_file", "fs", Core, func(ctx context.Context, c *Call, in readFileIn) (Result, error) {
			return w.in(ctx).readFile(ctx, c, in)
		}),
		NewTool("list_dir", "fs", Core, func(ctx context.Context, c *Call, in listDirIn) (Result, error) {
			return w.in(ctx).listDir(ctx, c, in)
		}),
		NewTool("glob", "fs", 0, func(ctx context.Context, c *Call, in globIn) (Result, error) {
			return w.in(ctx).glob(ctx, c, in)
		}),
		NewTool("grep", "fs", 0, func(ctx context.Context, c *Call, in grepIn) (Result, error) {
			return w.in(ctx).grep(ctx, c, in)
		}),
		NewTool("write_file", "fs", Writes, func(ctx context.Context, c *Call, in writeFileIn) (Result, error) {
			return w.in(ctx).writeFile(ctx, policy, c, in)
		}),
		NewTool("edit_file", "fs", Writes, func(ctx context.Context, c *Call, in editFileIn) (Result, error) {
			return w.in(ctx).editFile(ctx, policy, c, in)
		}),
	}
}

// permitWrite asks the policy about writing content to the checked path
// (old is what is there now); "" means go ahead, else the refusal for the
// model.
func (w *Workspace) permitWrite(ctx context.Context, policy ShellPolicy, c *Call, ck checked, old, content string, created bool) (string, error) {
	slash := filepath.ToSlash(ck.rel)
	q := Question{Action: c.Name + " " + slash, Path: slash, Old: old, New: content, Created: created, Why: ck.why}
	ok, why, err := policy.permitWrite(ctx, q, slash)
	if err != nil || ok {
		return "", err
	}
	return why, nil
}

// errBecameProtected refuses a write whose path turned into a protected one
// (a directory replaced by a link into .git) while it was being approved.
var errBecameProtected = errors.New("the path leads to a protected path now (a directory on the way changed since the write was approved): refused")

func (w *Workspace) readFile(ctx context.Context, _ *Call, a readFileIn) (Result, error) {
	rel, err := w.Rel(a.Path)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	f, err := w.root.Open(rel)
	if err != nil {
		return ErrorResult("%v", w.explain(a.Path, err)), nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return ErrorResult("%s is a directory: use list_dir", a.Path), nil
	}
	var from io.Reader = f
	if data, err := w.clientRead(ctx, rel, nil); err != nil {
		return ErrorResult("%s: %v", a.Path, err), nil
	} else if data != nil {
		from = bytes.NewReader(data)
	}
	var out strings.Builder
	sc := bufio.NewReader(from)
	line, shown, size := 0, 0, 0
	for {
		text, err := sc.ReadString('\n')
		if text == "" && err != nil {
			if err != io.EOF {
				return ErrorResult("read %s: %v", a.Path, err), nil
			}
			break
		}
		line++
		if line == 1 && !utf8.ValidString(text) || strings.IndexByte(text, 0) >= 0 {
			return ErrorResult("%s looks binary: not shown", a.Path), nil
		}
		if line < a.Offset || shown >= a.Limit || size >= readMaxBytes {
			continue
		}
		text = strings.TrimRight(text, "\r\n")
		if utf8.RuneCountInString(text) > lineMaxRunes {
			text = string([]rune(text)[:lineMaxRunes]) + " …[line cut]"
		}
		n, _ := fmt.Fprintf(&out, "%6d\t%s\n", line, text)
		shown++
		size += n
	}
	if line == 0 {
		return Result{Content: "(empty file)", Summary: "empty"}, nil
	}
	if shown == 0 {
		return ErrorResult("%s has %d lines; offset %d is past the end", a.Path, line, a.Offset), nil
	}
	last := a.Offset + shown - 1
	if last < line {
		fmt.Fprintf(&out, "[lines %d-%d of %d; read on with offset=%d]\n", a.Offset, last, line, last+1)
	}
	return Result{Content: out.String(), Summary: Count(shown, "line", "lines")}, nil
}

func (w *Workspace) listDir(_ context.Context, _ *Call, a listDirIn) (Result, error) {
	rel, err := w.Rel(a.Path)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	entries, err := fs.ReadDir(w.root.FS(), filepath.ToSlash(rel))
	if err != nil {
		return ErrorResult("%v", w.explain(a.Path, err)), nil
	}
	var b strings.Builder
	const maxEntries = 500
	for i, e := range entries {
		if i == maxEntries {
			fmt.Fprintf(&b, "… %d more entries\n", len(entries)-maxEntries)
			break
		}
		switch {
		case e.IsDir():
			fmt.Fprintf(&b, "%s/\n", e.Name())
		case e.Type()&fs.ModeSymlink != 0:
			fmt.Fprintf(&b, "%s@\n", e.Name())
		default:
			size := int64(0)
			if fi, err := e.Info(); err == nil {
				size = fi.Size()
			}
			fmt.Fprintf(&b, "%s\t%d\n", e.Name(), size)
		}
	}
	if len(entries) == 0 {
		b.WriteString("(empty directory)\n")
	}
	return Result{Content: b.String(), Summary: Count(len(entries), "entry", "entries")}, nil
}

func (w *Workspace) writeFile(ctx context.Context, policy ShellPolicy, c *Call, a writeFileIn) (Result, error) {
	if len(a.Content) > writeMaxBytes {
		return ErrorResult("content is %d bytes, over the %d MiB limit: split the file", len(a.Content), writeMaxBytes>>20), nil
	}
	rel, err := w.Rel(a.Path)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	if rel == "." {
		return ErrorResult("give a file path, not the workspace root"), nil
	}
	t, err := w.findFile(rel, nil)
	if err != nil {
		return ErrorResult("%v", w.explain(a.Path, err)), nil
	}
	_, existed, _ := t.stat()
	old := ""
	if existed {
		if data, err := w.read(t); err == nil {
			if data, err = w.clientRead(ctx, t.resolved(), data); err == nil {
				old = string(data)
			}
		}
	}
	ck := w.checkFound(rel, t)
	t.close()
	if why, err := w.permitWrite(ctx, policy, c, ck, old, a.Content, !existed); err != nil || why != "" {
		return ErrorResult("%s", why), err
	}
	if err := w.atomicWrite(ctx, ck, []byte(a.Content)); err != nil {
		return ErrorResult("%v", w.explain(a.Path, err)), nil
	}
	verb := "created"
	if existed {
		verb = "replaced"
	}
	lines := strings.Count(a.Content, "\n")
	return Result{
		Content:   fmt.Sprintf("%s %s (%d bytes, %d lines)", verb, filepath.ToSlash(rel), len(a.Content), lines),
		Summary:   fmt.Sprintf("%s, %d bytes", verb, len(a.Content)),
		Artifacts: []string{filepath.ToSlash(rel)},
		Diff:      linediff.Unified(filepath.ToSlash(rel), old, a.Content, !existed),
	}, nil
}

func (w *Workspace) editFile(ctx context.Context, policy ShellPolicy, c *Call, a editFileIn) (Result, error) {
	rel, err := w.Rel(a.Path)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	if rel == "." {
		return ErrorResult("give a file path, not the workspace root"), nil
	}
	t, err := w.findFile(rel, nil)
	if err != nil {
		return ErrorResult("%v", w.explain(a.Path, err)), nil
	}
	data, err := w.read(t)
	if err == nil {
		data, err = w.clientRead(ctx, t.resolved(), data)
	}
	ck := w.checkFound(rel, t)
	t.close()
	if err != nil {
		return ErrorResult("%v", w.explain(a.Path, err)), nil
	}
	switch n := bytes.Count(data, []byte(a.Old)); n {
	case 0:
		return ErrorResult("old text not found in %s: read the file again and copy the snippet exactly", a.Path), nil
	case 1:
	default:
		return ErrorResult("old text occurs %d times in %s: include more surrounding lines to make it unique", n, a.Path), nil
	}
	out := bytes.Replace(data, []byte(a.Old), []byte(a.New), 1)
	if why, err := w.permitWrite(ctx, policy, c, ck, string(data), string(out), false); err != nil || why != "" {
		return ErrorResult("%s", why), err
	}
	if err := w.atomicWrite(ctx, ck, out); err != nil {
		return ErrorResult("%v", w.explain(a.Path, err)), nil
	}
	return Result{
		Content:   fmt.Sprintf("edited %s: replaced %d bytes with %d", filepath.ToSlash(rel), len(a.Old), len(a.New)),
		Summary:   "edited",
		Artifacts: []string{filepath.ToSlash(rel)},
		Diff:      linediff.Unified(filepath.ToSlash(rel), string(data), string(out), false),
	}, nil
}

// atomicWrite replaces the checked path: the walk from the root is made
// again (creating the missing directories of what was checked, and
// nothing else), the file is written through the descriptor of its
// directory (atomicfile.WriteFileAt: a temporary file beside it, fsync,
// renameat, directory fsync), and only if the path still resolves to what
// was checked and is protected now only if it was then (when it was
// approved as such). With a client that writes (ClientFiles), the client
// writes the path so checked.
func (w *Workspace) atomicWrite(ctx context.Context, ck checked, data []byte) error {
	// Non-nil even for the root: a walk that creates never stops short.
	create := append([]string{}, splitRel(filepath.Dir(ck.resolved))...)
	t, err := w.findFile(ck.rel, create)
	if err != nil {
		return err
	}
	defer t.close()
	if t.resolved() != ck.resolved || len(t.missing) > 0 {
		return errPathChanged
	}
	if w.protectedReason(ck.rel, t.resolved()) != "" && ck.why == "" {
		return errBecameProtected
	}
	if write := clientFiles(ctx).Write; write != nil {
		if err := write(ctx, filepath.Join(w.dir, t.resolved()), string(data)); err != nil {
			return fmt.Errorf("the editor could not write it: %w", err)
		}
		return nil
	}
	perm := os.FileMode(0o644)
	st, exists, err := t.stat()
	if err != nil {
		return err
	}
	if exists {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			return w.linkError(t)
		case unix.S_IFREG:
			perm = os.FileMode(st.Mode).Perm()
		default:
			return fmt.Errorf("not a regular file")
		}
	}
	return atomicfile.WriteFileAt(t.dir, t.name, data, perm)
}
