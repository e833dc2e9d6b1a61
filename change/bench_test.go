package change

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkIsolation is the cost of isolating one delegation: the
// worktree (snapshot of the uncommitted changes, branch, checkout), one
// file edited, the commit with its diffstat and patch, the worktree and
// branch removed. "this-repo" is yagent's own checkout (skipped outside
// one); "10k-files" a repository of 10 000 small files in 100 folders.
//
//	go test ./change -run XXX -bench Isolation -benchtime 10x
func BenchmarkIsolation(b *testing.B) {
	ctx := context.Background()
	big := b.TempDir()
	files := map[string]string{}
	for i := range 10000 {
		files[fmt.Sprintf("d%02d/f%04d.txt", i%100, i)] = fmt.Sprintf("line %d\n", i)
	}
	for _, c := range []struct{ name, dir string }{{"this-repo", ".."}, {"10k-files", big}} {
		b.Run(c.name, func(b *testing.B) {
			dir := c.dir
			if c.name == "10k-files" {
				benchRepo(b, dir, files)
			} else if _, err := repoTop(ctx, dir); err != nil {
				b.Skip("not in a git checkout of yagent")
			}
			root := b.TempDir()
			b.ResetTimer()
			for i := range b.N {
				w, err := Isolate(ctx, dir, root, "bench", fmt.Sprintf("n%d", i))
				if err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(w.Dir, "yagent-bench.txt"), []byte("x\n"), 0o644); err != nil {
					b.Fatal(err)
				}
				ch, err := w.Commit(ctx, "bench")
				if err != nil {
					b.Fatal(err)
				}
				if len(ch.Patch) == 0 {
					b.Fatal("no patch")
				}
				if err := Discard(ctx, dir, ch, w.Dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchRepo makes a repository of files at dir, committed.
func benchRepo(b *testing.B, dir string, files map[string]string) {
	b.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit-tree", "-m", "x"}} {
		if args[0] == "commit-tree" {
			tree, err := git(ctx, at{dir: dir}, nil, "write-tree")
			if err != nil {
				b.Fatal(err)
			}
			c, err := git(ctx, at{dir: dir}, nil, "commit-tree", line(tree), "-m", "start")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := git(ctx, at{dir: dir}, nil, "update-ref", "HEAD", line(c)); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if _, err := git(ctx, at{dir: dir}, nil, args...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckpoint is the cost of one checkpoint of this repository's
// checkout (skipped outside one): "first" a workspace's first (every file
// hashed and stored), "next" the ones after it (the shadow's index keeps
// stat data: only files changed since are read again).
//
//	go test ./change -run XXX -bench Checkpoint -benchtime 5x
func BenchmarkCheckpoint(b *testing.B) {
	ctx := context.Background()
	if _, err := repoTop(ctx, ".."); err != nil {
		b.Skip("not in a git checkout of yagent")
	}
	b.Run("first", func(b *testing.B) {
		for i := range b.N {
			cp, err := OpenCheckpoints(ctx, b.TempDir(), "..")
			if err != nil {
				b.Fatal(err)
			}
			if err := cp.Take(ctx, fmt.Sprintf("bench/turn-%d", i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("next", func(b *testing.B) {
		cp, err := OpenCheckpoints(ctx, b.TempDir(), "..")
		if err != nil {
			b.Fatal(err)
		}
		if err := cp.Take(ctx, "bench/turn-0"); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := range b.N {
			if err := cp.Take(ctx, fmt.Sprintf("bench/turn-%d", i+1)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
