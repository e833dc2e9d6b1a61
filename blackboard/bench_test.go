package blackboard

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// seedBoard writes n notes spread over 4 agents directly (no fsync), as a
// fixture for read-side benchmarks.
func seedBoard(b *testing.B, n int) *Store {
	b.Helper()
	s := Open(b.TempDir())
	agents := []string{"explorer", "worker", "reviewer", "planner"}
	for _, a := range agents {
		if err := os.MkdirAll(AgentDir(s.root, "b", a), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	h := Handoff{Version: 2, Status: StatusOK, Task: "a task", Conclusion: "a conclusion of ordinary length for an index line", Facts: []string{"f1", "f2"}, Artifacts: []string{}}
	for i := range n {
		a := agents[i%len(agents)]
		h.Agent = a
		h.Created = t0.Add(time.Duration(i) * time.Second)
		data, err := encodeNote(&h, "body text\n")
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("%s_abcd-1-%06d.md", h.Created.Format("20060102T150405Z"), i)
		if err := os.WriteFile(filepath.Join(AgentDir(s.root, "b", a), name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkBuildIndex measures the per-call index on boards of growing
// size; BenchmarkReadDirBaseline is the bare directory listing of the same
// boards, the floor BuildIndex must stay close to.
func BenchmarkBuildIndex(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := seedBoard(b, n)
			b.ResetTimer()
			for b.Loop() {
				idx, err := s.BuildIndex("b", testIndex)
				if err != nil || idx.Listed != testIndex.MaxNotes {
					b.Fatal(idx, err)
				}
			}
		})
	}
}

func BenchmarkReadDirBaseline(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := seedBoard(b, n)
			b.ResetTimer()
			for b.Loop() {
				agents, _ := os.ReadDir(s.BoardDir("b"))
				for _, a := range agents {
					if _, err := os.ReadDir(filepath.Join(s.BoardDir("b"), a.Name())); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

func BenchmarkListNotes(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := seedBoard(b, n)
			b.ResetTimer()
			for b.Loop() {
				res, err := s.ListNotes("b", ListOptions{})
				if err != nil || len(res.Notes) != n {
					b.Fatal(len(res.Notes), err)
				}
			}
		})
	}
}

// BenchmarkWriteNote includes the file and directory fsyncs.
func BenchmarkWriteNote(b *testing.B) {
	note := NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer", Conclusion: "c", Facts: []string{"a"}}, Body: "body\n"}
	b.Run("single", func(b *testing.B) {
		s := Open(b.TempDir())
		for b.Loop() {
			if _, err := s.WriteNote("b", note); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel16", func(b *testing.B) {
		s := Open(b.TempDir())
		b.SetParallelism(8) // 8 × GOMAXPROCS(2) = 16 writers
		var n atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.WriteNote("b", note); err != nil {
					b.Error(err)
					return
				}
				n.Add(1)
			}
		})
	})
}
