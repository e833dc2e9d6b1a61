package memory

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/yagent/yagent/internal/statedb"
)

// OpenDB opens the state database of home (home/state.db, every
// migration applied). Rollouts without their database are never a silent
// fresh start: when the file is missing but rollouts exist it refuses,
// saying how many and where.
func OpenDB(ctx context.Context, home string) (*statedb.DB, error) {
	return statedb.Open(ctx, filepath.Join(home, "state.db"), statedb.RefuseFresh(func() string {
		switch n := CountRollouts(home); n {
		case 0:
			return ""
		case 1:
			return "1 session rollout exists under " + filepath.Join(home, "sessions")
		default:
			return fmt.Sprintf("%d session rollouts exist under %s", n, filepath.Join(home, "sessions"))
		}
	}))
}
