package webui

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/yagent/yagent/batch"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/memory"
)

// BenchmarkBatchState is one poll of a live 200-delegation batch (what the
// event stream does every Options.Poll): read the rollout, derive every
// delegation's state.
func BenchmarkBatchState(b *testing.B) {
	home := b.TempDir()
	db, err := statedb.Open(b.Context(), filepath.Join(home, "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	st := memory.NewStore(db, home)
	s, err := st.Create(b.Context(), memory.CreateOptions{Kind: memory.KindBatch, Cwd: home, Title: "batch plan.yaml", BoardID: "big"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	p := &batch.Plan{}
	for i := range 200 {
		id := fmt.Sprintf("d%03d", i)
		pd := batch.PlanDelegation{ID: id, Agent: "worker", Task: "t"}
		if i >= 100 {
			pd.DependsOn = []string{fmt.Sprintf("d%03d", i-100)}
		}
		p.Delegations = append(p.Delegations, pd)
		if i < 150 {
			s.DelegationStarted(event.DelegationEvent{CallID: id, Agent: "worker", Task: "t"})
			s.DelegationFinished(event.DelegationEvent{CallID: id, Agent: "worker", Status: "ok", Ref: "worker/20261129T100000Z_abcd-1-000001"})
		}
	}
	srv, err := New(Options{Sessions: st, Board: blackboard.Open(filepath.Join(home, "notes")), Token: "t", Now: time.Now})
	if err != nil {
		b.Fatal(err)
	}
	in := s.Info()
	b.ResetTimer()
	for b.Loop() {
		if _, err := srv.batchState(b.Context(), in, p, nil); err != nil {
			b.Fatal(err)
		}
	}
}
