package queue

import (
	"context"
	"fmt"

	"github.com/yagent/yagent/budget"
)

// spendSchema is yagent_budget_spend (schema version 5): what each budget
// scope spent, one row per scope, summed by every worker of a run.
const spendSchema = `CREATE TABLE yagent_budget_spend (
		scope text PRIMARY KEY,
		cost double precision NOT NULL DEFAULT 0,
		tokens bigint NOT NULL DEFAULT 0,
		calls bigint NOT NULL DEFAULT 0,
		updated_at timestamptz NOT NULL DEFAULT now()
	);`

// Ledger is the budget.Ledger of a queue database: the coordinator checks
// it and every worker charges it, so a budget holds across hosts.
func (q *Queue) Ledger() budget.Ledger { return ledger{q} }

type ledger struct{ q *Queue }

// Spent implements budget.Ledger.
func (l ledger) Spent(ctx context.Context, keys []string) (map[string]budget.Spend, error) {
	out := make(map[string]budget.Spend, len(keys))
	rows, err := l.q.pool.Query(ctx, `SELECT scope, cost, tokens, calls FROM yagent_budget_spend WHERE scope = ANY($1)`, keys)
	if err != nil {
		return nil, fmt.Errorf("read yagent_budget_spend: %w", scrub(err, l.q.opts.DSN))
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var s budget.Spend
		if err := rows.Scan(&k, &s.Cost, &s.Tokens, &s.Calls); err != nil {
			return nil, fmt.Errorf("read yagent_budget_spend: %w", err)
		}
		out[k] = s
	}
	return out, rows.Err()
}

// Charge implements budget.Ledger: one statement adds s to every key.
func (l ledger) Charge(ctx context.Context, keys []string, s budget.Spend) error {
	_, err := l.q.pool.Exec(ctx, `INSERT INTO yagent_budget_spend (scope, cost, tokens, calls)
		SELECT k, $2, $3, $4 FROM unnest($1::text[]) AS k
		ON CONFLICT (scope) DO UPDATE SET cost = yagent_budget_spend.cost + excluded.cost,
		tokens = yagent_budget_spend.tokens + excluded.tokens, calls = yagent_budget_spend.calls + excluded.calls,
		updated_at = now()`, keys, s.Cost, s.Tokens, s.Calls)
	if err != nil {
		return fmt.Errorf("charge yagent_budget_spend: %w", scrub(err, l.q.opts.DSN))
	}
	return nil
}
