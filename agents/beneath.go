package agents

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// The writes of the file tools never let the kernel follow a symbolic
// link, so nothing can change what a checked path means between the check
// and the write (issue 25: a command swapping a directory for a link to
// .git in that window got .git/config rewritten). From the workspace's
// root descriptor, each directory on the way is opened by one name with
// openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) — or openat(O_NOFOLLOW)
// where openat2 is missing (Linux before 5.6, other systems) or refused (a
// seccomp filter) — and the file is written through the last directory's
// descriptor (atomicfile.WriteFileAt). A link met on the way is resolved
// here, by its text, within the workspace (one that leads outside is
// refused), and the walk starts again from the root, so the walk always
// knows the real names that lead to the directory it holds: the protected
// check is made on those.
//
// os.Root is not enough for this, though it never leaves the root: it
// resolves links the same way but follows those that stay inside and says
// nothing of where it went, so a link to .git made after the check is
// "inside"; and each of its calls resolves the path again, so a temporary
// file opened in one directory can be renamed in another. Reads stay on
// os.Root: reading .git is allowed, and a read cannot leave the root.

// maxLinks bounds the symbolic links one walk follows (Linux's own limit).
const maxLinks = 40

// maxSteps bounds the directories one walk opens, restarts included.
const maxSteps = 4096

// errLeadsOutside refuses a link that points outside the workspace.
var errLeadsOutside = errors.New("a symbolic link on the way leads outside the workspace")

// errKeepsChanging refuses a walk that never settles (a directory swapped
// for a link and back, over and over).
var errKeepsChanging = errors.New("the path kept changing while it was opened: refused; try again")

// errPathChanged refuses a write whose path leads somewhere else than when
// it was checked (and perhaps approved).
var errPathChanged = errors.New("the path leads somewhere else now (a directory on the way changed since it was checked): refused")

// errIsSymlink refuses a file that is a symbolic link.
var errIsSymlink = errors.New("is a symlink")

// walked is a directory opened beneath the root by walk.
type walked struct {
	dir     *os.File // the deepest directory that exists
	chain   []string // the real names from the root to dir, none a link
	missing []string // names below dir that do not exist (walk without create)
}

// path is the real path, relative to the root, of the directory the walk
// was asked for.
func (d walked) path() string {
	return filepath.Join(append(append([]string{"."}, d.chain...), d.missing...)...)
}

// openDirAt opens the directory name (one component) in dirfd, never
// following a link.
func (w *Workspace) openDirAt(dirfd int, name string) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if !w.noOpenat2.Load() {
		fd, err := ignoringEINTR(func() (int, error) { return w.openat2(dirfd, name, flags) })
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, unix.ENOSYS):
			w.noOpenat2.Store(true) // no such call here (or a filter says so)
		case errors.Is(err, unix.EPERM), errors.Is(err, unix.EINVAL), errors.Is(err, unix.E2BIG):
			// A filter, or resolve flags the kernel lacks: openat decides,
			// and when it answers otherwise (it was openat2 that failed,
			// not the name), openat2 is given up for good.
			fd, oerr := ignoringEINTR(func() (int, error) { return unix.Openat(dirfd, name, flags, 0) })
			if !errors.Is(oerr, err) {
				w.noOpenat2.Store(true)
			}
			return fd, oerr
		default:
			return -1, err
		}
	}
	return ignoringEINTR(func() (int, error) { return unix.Openat(dirfd, name, flags, 0) })
}

func ignoringEINTR(f func() (int, error)) (int, error) {
	for {
		fd, err := f()
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// walk opens the directory rel (clean, relative to the root; "." is the
// root) beneath the root, resolving links itself (see the top of this
// file). Without create, a missing directory ends the walk: the result
// holds the deepest one that exists and the names still missing. create
// lists the real path (from the root) the walk may create directories on:
// a missing directory is made only when it is the next name of create
// after the chain walked so far, so a walk that a new link diverted
// creates nothing where it landed. The caller closes dir.
func (w *Workspace) walk(rel string, create []string) (walked, error) {
	root := int(w.top.Fd())
	parts := splitRel(rel)
	cur, chain := root, []string(nil)
	closeCur := func() {
		if cur != root {
			unix.Close(cur)
		}
	}
	links := 0
	for i, steps := 0, 0; i < len(parts); steps++ {
		if steps > maxSteps {
			closeCur()
			return walked{}, errKeepsChanging
		}
		name := parts[i]
		fd, err := w.openDirAt(cur, name)
		switch {
		case err == nil:
			closeCur()
			cur, chain = fd, append(chain, name)
			i++
			continue
		case errors.Is(err, unix.ENOENT):
			next := len(chain)
			if next >= len(create) || create[next] != name || !slices.Equal(chain, create[:next]) {
				if create != nil {
					closeCur()
					return walked{}, errPathChanged // diverted from what was checked
				}
				d, err := w.held(cur, root, chain)
				return walked{dir: d, chain: chain, missing: parts[i:]}, err
			}
			if err := unix.Mkdirat(cur, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				closeCur()
				return walked{}, &fs.PathError{Op: "mkdir", Path: filepath.Join(append(chain, name)...), Err: err}
			}
			continue // open what is there now
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR):
			target, lerr := readlinkat(cur, name)
			if errors.Is(lerr, unix.EINVAL) { // not a link
				if errors.Is(err, unix.ENOTDIR) {
					closeCur()
					return walked{}, &fs.PathError{Op: "open", Path: filepath.Join(append(chain, name)...), Err: unix.ENOTDIR}
				}
				continue // a link a moment ago: look again
			}
			if lerr != nil {
				continue // gone or changed: look again
			}
			if links++; links > maxLinks {
				closeCur()
				return walked{}, &fs.PathError{Op: "open", Path: rel, Err: unix.ELOOP}
			}
			resolved, ok := w.followLink(chain, target, parts[i+1:])
			if !ok {
				closeCur()
				return walked{}, errLeadsOutside
			}
			// Start again from the root on the resolved path.
			closeCur()
			cur, chain, parts, i = root, nil, resolved, 0
		default:
			closeCur()
			return walked{}, &fs.PathError{Op: "open", Path: filepath.Join(append(chain, name)...), Err: err}
		}
	}
	d, err := w.held(cur, root, chain)
	return walked{dir: d, chain: chain}, err
}

// held turns the walk's descriptor into a file the caller closes (the
// root's is duplicated: the workspace keeps its own).
func (w *Workspace) held(fd, root int, chain []string) (*os.File, error) {
	if fd == root {
		dup, err := unix.FcntlInt(uintptr(root), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		fd = dup
	}
	return os.NewFile(uintptr(fd), filepath.Join(append([]string{w.dir}, chain...)...)), nil
}

// followLink splices a link's text into the path: target replaces the
// link (relative to the directory holding it, chain; an absolute one must
// name a place in the workspace), rest follows. false when the result
// leads outside the root.
func (w *Workspace) followLink(chain []string, target string, rest []string) ([]string, bool) {
	var p string
	if filepath.IsAbs(target) {
		r, err := filepath.Rel(w.dir, filepath.Clean(target))
		if err != nil {
			return nil, false
		}
		p = r
	} else {
		p = filepath.Join(append(append([]string{"."}, chain...), target)...)
	}
	if p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator)) {
		return nil, false
	}
	return append(splitRel(p), rest...), true
}

// splitRel splits a clean relative path into its names ("." has none).
func splitRel(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(rel, string(filepath.Separator))
}

func readlinkat(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// fileTarget is a file of the workspace as a write sees it: the directory
// that holds it, opened by walk, and its name there.
type fileTarget struct {
	walked
	name string
}

// findFile walks to rel's directory (see walk for create) and names the
// file; rel is clean, relative, and not the root.
func (w *Workspace) findFile(rel string, create []string) (fileTarget, error) {
	d, err := w.walk(filepath.Dir(rel), create)
	if err != nil {
		return fileTarget{}, err
	}
	return fileTarget{walked: d, name: filepath.Base(rel)}, nil
}

// resolved is the file's real path relative to the root.
func (t fileTarget) resolved() string { return filepath.Join(t.path(), t.name) }

func (t fileTarget) close() {
	if t.dir != nil {
		t.dir.Close()
	}
}

// stat describes the file without following a link; false when it does
// not exist (or its directory does not yet).
func (t fileTarget) stat() (unix.Stat_t, bool, error) {
	var st unix.Stat_t
	if len(t.missing) > 0 {
		return st, false, nil
	}
	err := unix.Fstatat(int(t.dir.Fd()), t.name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return st, false, nil
	}
	if err != nil {
		return st, false, &fs.PathError{Op: "stat", Path: t.resolved(), Err: err}
	}
	return st, true, nil
}

// linkError is the refusal for a file that is a symbolic link: where it
// leads, or that it leads outside.
func (w *Workspace) linkError(t fileTarget) error {
	target, err := readlinkat(int(t.dir.Fd()), t.name)
	if err != nil {
		return fmt.Errorf("%w: write to the file it points to instead", errIsSymlink)
	}
	to, ok := w.followLink(t.chain, target, nil)
	if !ok {
		return errLeadsOutside
	}
	return fmt.Errorf("%w to %s: write to that file instead", errIsSymlink, filepath.ToSlash(filepath.Join(append([]string{"."}, to...)...)))
}

// read returns the content of an existing regular file, opened in its
// directory without following a link (a link is linkError's; a FIFO is
// not waited for).
func (w *Workspace) read(t fileTarget) ([]byte, error) {
	if len(t.missing) > 0 {
		return nil, &fs.PathError{Op: "open", Path: t.resolved(), Err: fs.ErrNotExist}
	}
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Openat(int(t.dir.Fd()), t.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	})
	if errors.Is(err, unix.ELOOP) {
		return nil, w.linkError(t)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: t.resolved(), Err: err}
	}
	f := os.NewFile(uintptr(fd), t.name)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	return io.ReadAll(f)
}
