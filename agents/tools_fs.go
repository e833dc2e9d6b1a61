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
	"sync/atomic"
	"unicode/utf8"
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
// over the workspace. Write tools report the files they produced as
// Result.Artifacts (the system's record of artifacts). A write to a
// protected path (Workspace.Protected) is always asked about; under the
// untrusted policy every write is, with the change shown as a diff.
func FSTools(w *Workspace, policy ShellPolicy) []*Tool {
	return []*Tool{
		NewTool("read_file", "fs", Core, w.readFile),
		NewTool("list_dir", "fs", Core, w.listDir),
		NewTool("glob", "fs", 0, w.glob),
		NewTool("grep", "fs", 0, w.grep),
		NewTool("write_file", "fs", Writes, func(ctx context.Context, c *Call, in writeFileIn) (Result, error) {
			return w.writeFile(ctx, policy, c, in)
		}),
		NewTool("edit_file", "fs", Writes, func(ctx context.Context, c *Call, in editFileIn) (Result, error) {
			return w.editFile(ctx, policy, c, in)
		}),
	}
}

// permitWrite asks the policy about writing content to rel (old is what is
// there now); "" means go ahead, else the refusal for the model.
func (w *Workspace) permitWrite(ctx context.Context, policy ShellPolicy, c *Call, rel, old, content string, created bool) (string, error) {
	slash := filepath.ToSlash(rel)
	q := Question{Action: c.Name + " " + slash, Path: slash, Old: old, New: content, Created: created}
	q.Why, _ = w.Protected(rel)
	ok, why, err := policy.permitWrite(ctx, q, slash)
	if err != nil || ok {
		return "", err
	}
	return why, nil
}

// errBecameProtected refuses a write whose path turned into a protected one
// (a directory replaced by a link into .git) while it was being approved.
var errBecameProtected = errors.New("the path leads to a protected path now (a directory on the way changed since the write was approved): refused")

func (w *Workspace) readFile(_ context.Context, _ *Call, a readFileIn) (Result, error) {
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
	var out strings.Builder
	sc := bufio.NewReader(f)
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
	existed := true
	if _, err := w.root.Stat(rel); err != nil {
		existed = false
	}
	old := ""
	if existed && policy.Ask != nil {
		if data, err := fs.ReadFile(w.root.FS(), filepath.ToSlash(rel)); err == nil {
			old = string(data)
		}
	}
	_, protected := w.Protected(rel)
	if why, err := w.permitWrite(ctx, policy, c, rel, old, a.Content, !existed); err != nil || why != "" {
		return ErrorResult("%s", why), err
	}
	if err := w.atomicWrite(rel, []byte(a.Content), protected); err != nil {
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
	}, nil
}

func (w *Workspace) editFile(ctx context.Context, policy ShellPolicy, c *Call, a editFileIn) (Result, error) {
	rel, err := w.Rel(a.Path)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	data, err := fs.ReadFile(w.root.FS(), filepath.ToSlash(rel))
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
	_, protected := w.Protected(rel)
	if why, err := w.permitWrite(ctx, policy, c, rel, string(data), string(out), false); err != nil || why != "" {
		return ErrorResult("%s", why), err
	}
	if err := w.atomicWrite(rel, out, protected); err != nil {
		return ErrorResult("%v", w.explain(a.Path, err)), nil
	}
	return Result{
		Content:   fmt.Sprintf("edited %s: replaced %d bytes with %d", filepath.ToSlash(rel), len(a.Old), len(a.New)),
		Summary:   "edited",
		Artifacts: []string{filepath.ToSlash(rel)},
	}, nil
}

var tmpSeq atomic.Uint64

// nameMax is the longest file name (bytes) Linux file systems take.
const nameMax = 255

// tempName names atomicWrite's temporary file for base: hidden, ending in
// digits (never like the real file), and within nameMax however long base
// is — a long base is cut at a character boundary.
func tempName(base string, pid int, seq uint64) string {
	suffix := fmt.Sprintf(".yagent-tmp-%d-%d", pid, seq)
	if room := nameMax - 1 - len(suffix); len(base) > room {
		base = base[:room]
		// Drop a character the cut split (at most UTFMax-1 bytes).
		for i := 0; i < utf8.UTFMax-1 && len(base) > 0; i++ {
			if r, size := utf8.DecodeLastRuneInString(base); r != utf8.RuneError || size != 1 {
				break
			}
			base = base[:len(base)-1]
		}
	}
	return "." + base + suffix
}

// atomicWrite replaces rel inside the root: a temp file beside it that
// never looks like the real one, fsync, rename, directory fsync. Parent
// directories are created. Unless the write was approved as one to a
// protected path, rel is checked again once its directory exists.
func (w *Workspace) atomicWrite(rel string, data []byte, approvedProtected bool) error {
	dir := filepath.Dir(rel)
	if dir != "." {
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if _, now := w.Protected(rel); now && !approvedProtected {
		return errBecameProtected
	}
	perm := os.FileMode(0o644)
	if fi, err := w.root.Lstat(rel); err == nil {
		if fi.Mode()&os.ModeSymlink != 0 {
			if _, err := w.root.Stat(rel); err != nil {
				return err // escapes, or dangles
			}
			return fmt.Errorf("is a symlink: write to the file it points to instead")
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("not a regular file")
		}
		perm = fi.Mode().Perm()
	}
	tmp := filepath.Join(dir, tempName(filepath.Base(rel), os.Getpid(), tmpSeq.Add(1)))
	f, err := w.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = w.root.Rename(tmp, rel)
	}
	if werr != nil {
		_ = w.root.Remove(tmp)
		return werr
	}
	if d, err := w.root.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
