//go:build linux && (amd64 || arm64 || riscv64)

package helper

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// Landlock handles every filesystem right the kernel's ABI knows, so a
// right not granted is refused: each ABI adds its own.
func TestFSRights(t *testing.T) {
	for _, c := range []struct {
		abi  int
		want uint64
	}{
		{1, 0x1fff},   // execute … make_sym
		{2, 0x3fff},   // + refer
		{3, 0x7fff},   // + truncate
		{4, 0x7fff},   // (network rights only)
		{5, 0xffff},   // + ioctl on devices
		{8, 0xffff},   // (scopes only)
		{9, 0x1ffff},  // + resolving Unix sockets
		{10, 0x1ffff}, // (nothing newer known here)
	} {
		if got := fsRights(c.abi); got != c.want {
			t.Errorf("fsRights(%d) = %#x; want %#x", c.abi, got, c.want)
		}
	}
}

// Landlock grants writes under the spec's writable ops as the command
// sees them (the private temp dir at /tmp in a view), the harmless
// devices, and a view's own /dev/pts and /dev/shm; never a read-only,
// hidden or bound path.
func TestWritablePaths(t *testing.T) {
	ops := []Op{{Kind: Tmp, Path: "/h/tmp/x"}, {Kind: RW, Path: "/w"}, {Kind: RO, Path: "/w/.git"}, {Kind: Hide, Path: "/run"},
		{Kind: Bind, Path: "/h/cache", At: "/tmp/.cache"}, {Kind: RWFile, Path: "/w/README"}}
	for _, c := range []struct {
		mech Mechanism
		want []string
	}{
		{View, []string{"/dev/null", "/dev/zero", "/dev/full", "/tmp", "/w", "/w/README", "/dev/pts", "/dev/shm"}},
		{Landlock, []string{"/dev/null", "/dev/zero", "/dev/full", "/h/tmp/x", "/w", "/w/README"}},
	} {
		if got := writablePaths(&Spec{Mechanism: c.mech, Ops: ops}); !slices.Equal(got, c.want) {
			t.Errorf("%s: writablePaths = %q; want %q", c.mech, got, c.want)
		}
	}
}

// lookPath finds a command as a shell does: a name with a slash as it
// is, else the first executable regular file in PATH ("" = the current
// directory, and so is an empty PATH), the usual directories without PATH.
func TestLookPath(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	write := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "tool"), 0o644) // not executable
	write(filepath.Join(other, "tool"), 0o755)
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(other, "adir"), 0o755)
	t.Chdir(other)
	for _, c := range []struct {
		name, path, want string
	}{
		{"tool", dir + ":" + other, filepath.Join(other, "tool")},
		{"adir", dir + ":" + other, filepath.Join(other, "adir")},
		{"tool", dir + "::/nonexistent", "./tool"},
		{"tool", dir + ":", "./tool"},
		{"tool", "", "./tool"}, // PATH= is the current directory (dash, bash)
		{"./x/y", "", "./x/y"},
		{"/abs/cmd", dir, "/abs/cmd"},
	} {
		got, err := lookPath(c.name, []string{"HOME=/", "PATH=" + c.path})
		if err != nil || got != c.want {
			t.Errorf("lookPath(%q) with PATH=%q = %q, %v; want %q", c.name, c.path, got, err, c.want)
		}
	}
	if _, err := lookPath("tool", []string{"PATH=" + dir}); err == nil || err.Error() != "tool: command not found" {
		t.Errorf("a file without the execute bit: err = %v; want tool: command not found", err)
	}
	if got, err := lookPath("sh", []string{"X=PATH=" + dir}); err != nil || !strings.HasSuffix(got, "/sh") {
		t.Errorf("without PATH: %q, %v; want sh in the usual directories", got, err)
	}
}

// Only a command line whose second argument is exactly Arg is a helper's;
// this test binary is not one.
func TestIsHelper(t *testing.T) {
	for _, c := range []struct {
		cmdline string
		want    bool
	}{
		{"yagent\x00" + Arg + "\x00-m\x00view\x00", true},
		{"/proc/self/exe\x00" + Arg + "\x00", true},
		{"yagent\x00" + Arg, false},
		{"yagent\x00" + Arg + "x\x00", false},
		{"yagent\x00run\x00" + Arg + "\x00", false},
		{Arg + "\x00run\x00", false},
		{"yagent\x00" + Arg[:len(Arg)-1] + "\x00", false},
		{"yagent", false},
		{"", false},
	} {
		if got := isHelper([]byte(c.cmdline)); got != c.want {
			t.Errorf("isHelper(%q) = %v; want %v", c.cmdline, got, c.want)
		}
	}
	if args, ok := helperArgs(); ok {
		t.Errorf("the test binary taken for a helper: %q", args)
	}
}

// A view's mount point is made where it is missing (returning the first
// directory made, to become a read-only skeleton) and must be of the
// kind it binds.
func TestMountPoint(t *testing.T) {
	for _, c := range []struct{ path, want string }{{"/a/b", "/a"}, {"/a", "/"}, {"/", "/"}, {"/a/b/c/", "/a/b/c"}} {
		if got := parent(c.path); got != c.want {
			t.Errorf("parent(%q) = %q; want %q", c.path, got, c.want)
		}
	}
	root := t.TempDir()
	if made, err := mkdirAll(filepath.Join(root, "a", "b", "c")); err != nil || made != filepath.Join(root, "a") {
		t.Errorf("mkdirAll: %q, %v; want %s/a", made, err, root)
	}
	if made, err := mkdirAll(filepath.Join(root, "a", "b")); err != nil || made != "" {
		t.Errorf("mkdirAll of an existing directory: %q, %v", made, err)
	}
	// A directory that cannot be made (its parent is a file) is an
	// error, never taken as made.
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if made, err := mkdirAll(filepath.Join(root, "file", "d")); err != syscall.ENOTDIR {
		t.Errorf("mkdirAll under a file: %q, %v; want ENOTDIR", made, err)
	}
	for _, c := range []struct {
		path string
		dir  bool
		want string // first made
	}{
		{filepath.Join(root, "a", "b"), true, ""},
		{filepath.Join(root, "a", "new"), true, filepath.Join(root, "a", "new")},
		{filepath.Join(root, "a", "f"), false, filepath.Join(root, "a", "f")},
		{filepath.Join(root, "x", "y", "f"), false, filepath.Join(root, "x")},
		{filepath.Join(root, "d", "e"), true, filepath.Join(root, "d")},
	} {
		made, err := mountPoint(c.path, c.dir)
		if err != nil || made != c.want {
			t.Errorf("mountPoint(%s, dir=%v) = %q, %v; want %q", c.path, c.dir, made, err, c.want)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(c.path, &st); err != nil || (st.Mode&syscall.S_IFMT == syscall.S_IFDIR) != c.dir {
			t.Errorf("mountPoint(%s, dir=%v) made mode %o, %v", c.path, c.dir, st.Mode, err)
		}
	}
	for _, c := range []struct {
		path string
		dir  bool
	}{{filepath.Join(root, "a", "f"), true}, {filepath.Join(root, "a", "b"), false}} {
		if _, err := mountPoint(c.path, c.dir); err == nil || !strings.Contains(err.Error(), "not of the kind it binds") {
			t.Errorf("mountPoint(%s, dir=%v) over the other kind: %v", c.path, c.dir, err)
		}
	}
	if _, err := mountPoint(filepath.Join(root, "a", "f", "under-a-file"), true); err == nil {
		t.Error("a mount point under a file was made")
	}
}
