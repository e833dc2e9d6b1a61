package webui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/yagent/yagent/batch"
	"github.com/yagent/yagent/memory"
)

// Geometry of the plan's DAG (SVG viewBox units).
const (
	dagNodeW = 180.0
	dagNodeH = 48.0
	dagColW  = 230.0
	dagRowH  = 66.0
	dagPad   = 16.0
)

// node is one delegation of a batch plan and its state.
type node struct {
	ID     string   `json:"id"`
	Agent  string   `json:"agent"`
	Task   string   `json:"-"`
	Deps   []string `json:"-"`
	Status string   `json:"status"` // pending, running, a note's status, skipped, not_started, abandoned
	Ref    string   `json:"ref"`
	Href   string   `json:"href"`
	// Resumed: the note came from an earlier run of the plan (--resume).
	Resumed bool `json:"resumed"`
	// Worker runs the delegation now (a --queue batch's River worker).
	Worker string  `json:"worker,omitempty"`
	X      float64 `json:"-"`
	Y      float64 `json:"-"`
	TextX  float64 `json:"-"`
}

type edge struct{ X1, Y1, X2, Y2, C float64 }

type batchData struct {
	Info    memory.Info
	Plan    string
	PlanErr string
	Nodes   []node
	Edges   []edge
	Done    bool
	W, H    float64
}

// stateMsg is one server-sent event of a batch's state.
type stateMsg struct {
	Nodes []node `json:"nodes"`
	Done  bool   `json:"done"`
}

// planOf reads the plan a batch session ran: its title is "batch FILE",
// FILE as given on the command line in the session's directory.
func planOf(in memory.Info) (string, *batch.Plan, error) {
	file, ok := strings.CutPrefix(in.Title, "batch ")
	if !ok || in.Kind != memory.KindBatch {
		return "", nil, fmt.Errorf("session %s is not a batch run", in.ID)
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(in.Cwd, file)
	}
	p, err := batch.ReadPlan(file)
	return file, p, err
}

// batchState is the plan's delegations with their state now
// (batch.StateFromRollout over the session's rollout and the notes an
// earlier run left), placed for the page.
func (s *Server) batchState(ctx context.Context, in memory.Info, p *batch.Plan, landed map[string]batch.LandedNote) (batchData, error) {
	d := batchData{Info: in}
	ro, err := memory.LoadRolloutBounded(in.Rollout, MaxShown)
	if err != nil {
		return d, err
	}
	st := batch.StateFromRollout(p, ro.Items, landed, runnerAlive(in.Rollout))
	var workers map[string]string // a --queue batch's running jobs
	if !st.Done {
		workers = s.runningWorkers(ctx, in.BoardID)
	}
	for _, n := range st.Nodes {
		nd := node{ID: n.ID, Agent: n.Agent, Task: n.Task, Deps: n.Deps, Status: n.Status, Ref: n.Ref, Resumed: n.Resumed}
		if w, ok := workers[n.ID]; ok && (n.Status == "pending" || n.Status == "running") {
			nd.Status, nd.Worker = "running", w
		}
		if n.Ref != "" {
			nd.Href = noteHref(in.BoardID, n.Ref)
		}
		d.Nodes = append(d.Nodes, nd)
	}
	d.Done = st.Done
	return d, nil
}

// runnerAlive reports whether the process that last held the session may
// still be running it: its lock file names a pid of this host that lives
// (or another host, which cannot be asked).
func runnerAlive(rollout string) bool {
	pid, host := memory.LockHolder(rollout)
	if pid <= 0 {
		return false
	}
	if me, err := os.Hostname(); err == nil && host != "" && host != me {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || err == syscall.EPERM
}

// landedNotes are the notes an earlier run of the plan left, written
// before the session began (batch.Landed): --resume reused them without
// running their delegations again, so the rollout never mentions them. A
// board that cannot be listed shows none.
func (s *Server) landedNotes(in memory.Info, p *batch.Plan) map[string]batch.LandedNote {
	landed, err := batch.Landed(s.o.Board, in.BoardID, p, in.Created)
	if err != nil {
		return nil
	}
	return landed
}

// layout places the DAG: a column per depth (the longest chain of
// dependencies before it), rows in plan order; edges run from a
// dependency's right side to the dependant's left.
func (d *batchData) layout() {
	index := map[string]int{}
	for i, n := range d.Nodes {
		index[n.ID] = i
	}
	depth := make([]int, len(d.Nodes))
	for i := range depth {
		depth[i] = -1
	}
	var depthOf func(i int, seen map[int]bool) int
	depthOf = func(i int, seen map[int]bool) int {
		if depth[i] >= 0 {
			return depth[i]
		}
		if seen[i] { // a cycle: the plan was checked, but never loop
			return 0
		}
		seen[i] = true
		dd := 0
		for _, dep := range d.Nodes[i].Deps {
			if j, ok := index[dep]; ok {
				dd = max(dd, depthOf(j, seen)+1)
			}
		}
		depth[i] = dd
		return dd
	}
	rows := map[int]int{}
	maxRows, maxCol := 0, 0
	for i := range d.Nodes {
		c := depthOf(i, map[int]bool{})
		n := &d.Nodes[i]
		n.X = dagPad + float64(c)*dagColW
		n.Y = dagPad + float64(rows[c])*dagRowH
		n.TextX = n.X + 10
		rows[c]++
		maxRows, maxCol = max(maxRows, rows[c]), max(maxCol, c)
	}
	for _, n := range d.Nodes {
		for _, dep := range n.Deps {
			if j, ok := index[dep]; ok {
				a := d.Nodes[j]
				x1, y1, x2, y2 := a.X+dagNodeW, a.Y+dagNodeH/2, n.X, n.Y+dagNodeH/2
				d.Edges = append(d.Edges, edge{X1: x1, Y1: y1, X2: x2, Y2: y2, C: (x1 + x2) / 2})
			}
		}
	}
	d.W = 2*dagPad + float64(maxCol)*dagColW + dagNodeW
	d.H = 2*dagPad + float64(max(maxRows, 1)-1)*dagRowH + dagNodeH
}

func (s *Server) batchSession(w http.ResponseWriter, r *http.Request) (memory.Info, string, *batch.Plan, string, bool) {
	id := r.PathValue("id")
	in, err := s.o.Sessions.Get(r.Context(), id)
	if err != nil {
		s.fail(w, "session "+id, err)
		return in, "", nil, "", false
	}
	if in.Kind != memory.KindBatch {
		s.notFound(w, fmt.Sprintf("Session %s is a %s session, not a batch run: it has no plan.", in.ID, in.Kind))
		return in, "", nil, "", false
	}
	file, p, err := planOf(in)
	planErr := ""
	if err != nil {
		// The plan file moved or changed since: the rollout still says
		// which delegations ran, only the dependencies are unknown.
		planErr = fmt.Sprintf("the plan %s cannot be read now (%v): dependencies are not shown", file, err)
		p = nil
	}
	return in, file, p, planErr, true
}

func (s *Server) batchPage(w http.ResponseWriter, r *http.Request) {
	in, file, p, planErr, ok := s.batchSession(w, r)
	if !ok {
		return
	}
	d, err := s.batchState(r.Context(), in, p, s.landedNotes(in, p))
	if err != nil {
		s.fail(w, "batch "+in.ID, err)
		return
	}
	d.Plan, d.PlanErr = file, planErr
	d.layout()
	pg := page{Title: "Batch " + in.ID, Crumbs: append(sessionCrumbs(in), crumb{sessionHref(in.ID) + "/batch", "batch"}), Data: d}
	if !d.Done {
		pg.Events = sessionHref(in.ID) + "/batch/events"
	}
	s.render(w, http.StatusOK, pg)
}

// batchEvents streams the batch's state as server-sent events ("state",
// JSON stateMsg) whenever it changes, until the run is done or the
// browser goes away.
func (s *Server) batchEvents(w http.ResponseWriter, r *http.Request) {
	in, _, p, _, ok := s.batchSession(w, r)
	if !ok {
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	landed := s.landedNotes(in, p) // left before the run started: read once
	tick := time.NewTicker(s.o.Poll)
	defer tick.Stop()
	var last []byte
	for {
		d, err := s.batchState(r.Context(), in, p, landed)
		if err != nil {
			fmt.Fprintf(w, "event: failure\ndata: %q\n\n", err.Error())
			flusher.Flush()
			return
		}
		data, _ := json.Marshal(stateMsg{Nodes: d.Nodes, Done: d.Done})
		if !bytes.Equal(data, last) {
			fmt.Fprintf(w, "event: state\ndata: %s\n\n", data)
			flusher.Flush()
			last = data
		}
		if d.Done {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}
