package director

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/atomicfile"
)

// A background delegation runs in the process that started it, and only
// that process can stop it. `yagent board cancel REF --board ID` from
// another process asks it through two files under
// $YAGENT_HOME/background/<board>/<agent>/: <stem>.run, written by the
// running process while the delegation runs (its pid and session), and
// <stem>.cancel, written by board cancel and polled for by the running
// process every cancelPoll — which then cancels it as cancel_delegation
// does (one degraded note at the ref). No .run, or a .run whose process is
// gone, is refused at once (exit 2), naming the session whose resume
// recovers it.

// cancelPoll is how often a running background delegation looks for a
// cancel request.
const cancelPoll = 250 * time.Millisecond

// ErrNotRunning reports a background delegation that no live process
// runs: nothing can cancel it (a resume of its session recovers it).
var ErrNotRunning = errors.New("no running yagent process runs it in the background")

// ErrLanded reports a delegation whose note has landed: there is nothing
// to cancel.
var ErrLanded = errors.New("has landed already")

// requestPaths are the .run and .cancel files of ref on board under home.
func requestPaths(home, board, ref string) (run, cancel string, err error) {
	r, err := blackboard.ParseNoteRef(ref)
	if err != nil {
		return "", "", err
	}
	dir := filepath.Join(home, "background", blackboard.SanitizeBoardID(board), r.Agent)
	return filepath.Join(dir, r.Stem+".run"), filepath.Join(dir, r.Stem+".cancel"), nil
}

// watchCancelRequests writes j's .run file and polls for its .cancel file
// until j lands (a home-less run, a test's, has neither).
func (d *Director) watchCancelRequests(j *job) {
	home := d.app.Config.Home
	if home == "" {
		return
	}
	run, cancel, err := requestPaths(home, d.opts.BoardID, j.ref)
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(run), 0o755); err == nil {
			err = atomicfile.WriteFile(run, fmt.Appendf(nil, "%d %s\n", os.Getpid(), d.opts.Session.ID()), 0o644)
		}
	}
	if err != nil {
		d.warn("let yagent board cancel reach "+j.ref, err)
		return
	}
	go func() {
		t := time.NewTicker(cancelPoll)
		defer t.Stop()
		for {
			select {
			case <-j.done:
				return
			case <-t.C:
			}
			if _, err := os.Stat(cancel); err != nil {
				continue
			}
			j.mu.Lock()
			j.cancelled = true
			j.mu.Unlock()
			j.cancel(errCancelled)
			return
		}
	}()
}

// forgetCancelRequest removes j's .run and .cancel files once it landed.
func (d *Director) forgetCancelRequest(j *job) {
	if d.app.Config.Home == "" {
		return
	}
	if run, cancel, err := requestPaths(d.app.Config.Home, d.opts.BoardID, j.ref); err == nil {
		os.Remove(run)
		os.Remove(cancel)
	}
}

// dropStaleRequest removes the .run and .cancel files of a background
// delegation ref a dead process left (recovered on resume), so board
// cancel and the web view do not take it for running. A .run of another
// live process is left alone.
func (d *Director) dropStaleRequest(ref string) {
	if d.app.Config.Home == "" {
		return
	}
	run, cancel, err := requestPaths(d.app.Config.Home, d.opts.BoardID, ref)
	if err != nil {
		return
	}
	if data, err := os.ReadFile(run); err == nil {
		pidText, _, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
		if pid, _ := strconv.Atoi(pidText); pid > 0 && pid != os.Getpid() && alive(pid) {
			return
		}
	}
	os.Remove(run)
	os.Remove(cancel)
}

// RequestCancel asks the process running the background delegation ref
// of board (under home) to cancel it, and waits up to wait for its note
// to land (yagent board cancel). A note already there is ErrLanded; no
// live process running it is ErrNotRunning, naming the session to resume.
func RequestCancel(ctx context.Context, home string, store *blackboard.Store, board, ref string, wait time.Duration) (blackboard.NoteMeta, error) {
	run, cancel, err := requestPaths(home, board, ref)
	if err != nil {
		return blackboard.NoteMeta{}, fmt.Errorf("cancel %s: %w", ref, err)
	}
	if m, _, err := store.ReadHandoff(board, ref); err == nil {
		return m, fmt.Errorf("cancel %s: it %w (%s): nothing to cancel", m.Ref, ErrLanded, m.Status)
	}
	data, err := os.ReadFile(run)
	if errors.Is(err, os.ErrNotExist) {
		if m, _, err := store.ReadHandoff(board, ref); err == nil { // it landed meanwhile
			return m, fmt.Errorf("cancel %s: it %w (%s): nothing to cancel", m.Ref, ErrLanded, m.Status)
		}
		return blackboard.NoteMeta{}, fmt.Errorf("cancel %s on board %s: %w: if the process that started it ended, yagent resume of its session recovers it as a degraded note", ref, board, ErrNotRunning)
	}
	if err != nil {
		return blackboard.NoteMeta{}, fmt.Errorf("cancel %s: %w", ref, err)
	}
	pidText, session, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
	pid, _ := strconv.Atoi(pidText)
	if pid <= 0 || !alive(pid) {
		return blackboard.NoteMeta{}, fmt.Errorf("cancel %s: %w (process %s is gone): yagent resume %s recovers it as a degraded note", ref, ErrNotRunning, pidText, session)
	}
	if err := atomicfile.WriteFile(cancel, []byte("cancel\n"), 0o644); err != nil {
		return blackboard.NoteMeta{}, fmt.Errorf("cancel %s: %w", ref, err)
	}
	deadline := time.Now().Add(wait)
	for {
		if m, _, err := store.ReadHandoff(board, ref); err == nil {
			return m, nil
		}
		if time.Now().After(deadline) {
			return blackboard.NoteMeta{}, fmt.Errorf("cancel %s: asked process %d (session %s) to stop it, and its note has not landed within %s: see yagent board show %s --board %s later", ref, pid, session, wait, ref, board)
		}
		select {
		case <-ctx.Done():
			return blackboard.NoteMeta{}, ctx.Err()
		case <-time.After(cancelPoll):
		}
	}
}
