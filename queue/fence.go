package queue

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivershared/baseservice"
	"github.com/riverqueue/river/rivershared/riverpilot"
	"github.com/riverqueue/river/rivertype"
)

// fencedDriver is River's pgx driver with a pilot that fences River's
// own writes of an attempt's end. River's completer writes a job's
// failure, snooze or completion up to a few hundred milliseconds after
// Work returns, checking only that the job is running: had the job been
// handed to another worker in between (this one froze after its last
// fencing check), the write would end the other worker's live attempt
// ("attempt 3 of 2", the same delegation on two workers). River takes a
// driver's pilot through its plugin interface (PluginInit, PluginPilot),
// the seam River Pro uses.
type fencedDriver struct {
	*riverpgxv5.Driver
	pilot *fencedPilot
}

func newFencedDriver(d *riverpgxv5.Driver) *fencedDriver {
	return &fencedDriver{Driver: d, pilot: &fencedPilot{driver: d, worked: map[int64]int{}}}
}

// PluginInit is River's plugin hook; the pilot needs nothing of it.
func (d *fencedDriver) PluginInit(*baseservice.Archetype) {}

// PluginPilot returns the fencing pilot.
func (d *fencedDriver) PluginPilot() riverpilot.Pilot { return d.pilot }

// fencedPilot is River's standard pilot whose JobSetStateIfRunningMany
// applies a state change to a job this process worked only while the job
// is still at the River attempt this process worked (River counts one
// more at each fetch, so another worker's attempt has another number):
// in one transaction that locks the jobs' rows (a fetch skips locked
// rows), a write for an attempt that is not the job's current one is
// dropped. Jobs this process did not work pass unchanged.
type fencedPilot struct {
	riverpilot.StandardPilot
	driver *riverpgxv5.Driver
	mu     sync.Mutex
	worked map[int64]int // job → the River attempt this process worked
}

// working records that this process works job at River attempt n; the
// next state change written for the job is fenced by it.
func (p *fencedPilot) working(job int64, n int) {
	p.mu.Lock()
	p.worked[job] = n
	p.mu.Unlock()
}

// JobSetStateIfRunningMany implements riverpilot.Pilot.
func (p *fencedPilot) JobSetStateIfRunningMany(ctx context.Context, exec riverdriver.Executor, params *riverdriver.JobSetStateIfRunningManyParams) ([]*rivertype.JobRow, error) {
	want := map[int64]int{}
	p.mu.Lock()
	for _, id := range params.ID {
		if n, ok := p.worked[id]; ok {
			want[id] = n
		}
	}
	p.mu.Unlock()
	if len(want) == 0 {
		return exec.JobSetStateIfRunningMany(ctx, params)
	}
	// River retries a failed write: the attempts are forgotten only once
	// it is done.
	etx, err := exec.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer etx.Rollback(context.WithoutCancel(ctx))
	stale, err := staleAttempts(ctx, p.driver.UnwrapTx(etx), want)
	if err != nil {
		return nil, err
	}
	rows, err := etx.JobSetStateIfRunningMany(ctx, withoutJobs(params, stale))
	if err != nil {
		return nil, err
	}
	if err := etx.Commit(ctx); err != nil {
		return nil, err
	}
	p.mu.Lock()
	for id, n := range want {
		if p.worked[id] == n {
			delete(p.worked, id)
		}
	}
	p.mu.Unlock()
	return rows, nil
}

// staleAttempts locks the rows of the jobs in want and returns those
// whose current River attempt is not the one want names.
func staleAttempts(ctx context.Context, tx pgx.Tx, want map[int64]int) (map[int64]bool, error) {
	ids := make([]int64, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	rows, err := tx.Query(ctx, `SELECT id, attempt FROM river_job WHERE id = ANY($1) ORDER BY id FOR UPDATE`, ids)
	if err != nil {
		return nil, fmt.Errorf("fence the end of jobs %v: %w", ids, err)
	}
	defer rows.Close()
	stale := map[int64]bool{}
	for rows.Next() {
		var (
			id int64
			n  int
		)
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		if n != want[id] {
			stale[id] = true
		}
	}
	return stale, rows.Err()
}

// withoutJobs returns params without the state changes of the jobs in
// drop (params itself when there are none). Every per-job column of
// JobSetStateIfRunningManyParams is filtered alike
// (TestWithoutJobsKeepsColumnsAligned).
func withoutJobs(params *riverdriver.JobSetStateIfRunningManyParams, drop map[int64]bool) *riverdriver.JobSetStateIfRunningManyParams {
	if len(drop) == 0 {
		return params
	}
	out := &riverdriver.JobSetStateIfRunningManyParams{Now: params.Now, Schema: params.Schema}
	for i, id := range params.ID {
		if drop[id] {
			continue
		}
		out.ID = append(out.ID, id)
		out.Attempt = append(out.Attempt, params.Attempt[i])
		out.ErrData = append(out.ErrData, params.ErrData[i])
		out.FinalizedAt = append(out.FinalizedAt, params.FinalizedAt[i])
		out.MetadataDoMerge = append(out.MetadataDoMerge, params.MetadataDoMerge[i])
		out.MetadataUpdates = append(out.MetadataUpdates, params.MetadataUpdates[i])
		out.ScheduledAt = append(out.ScheduledAt, params.ScheduledAt[i])
		out.State = append(out.State, params.State[i])
	}
	return out
}
