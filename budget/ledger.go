package budget

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Memory is a Ledger in memory (one process; tests).
type Memory struct {
	mu    sync.Mutex
	spent map[string]Spend
}

// Spent implements Ledger.
func (m *Memory) Spent(_ context.Context, keys []string) (map[string]Spend, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]Spend, len(keys))
	for _, k := range keys {
		out[k] = m.spent[k]
	}
	return out, nil
}

// Charge implements Ledger.
func (m *Memory) Charge(_ context.Context, keys []string, s Spend) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.spent == nil {
		m.spent = map[string]Spend{}
	}
	for _, k := range keys {
		v := m.spent[k]
		v.Cost += s.Cost
		v.Tokens += s.Tokens
		v.Calls += s.Calls
		m.spent[k] = v
	}
	return nil
}

// SQLite is the Ledger of the state database (its budget_spend table,
// internal/statedb): every yagent process of the machine sums into it.
type SQLite struct {
	DB  *sql.DB
	Now func() time.Time
}

// Spent implements Ledger.
func (l SQLite) Spent(ctx context.Context, keys []string) (map[string]Spend, error) {
	out := make(map[string]Spend, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	rows, err := l.DB.QueryContext(ctx, `SELECT scope, cost, tokens, calls FROM budget_spend WHERE scope IN (?`+strings.Repeat(", ?", len(keys)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read budget_spend: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var s Spend
		if err := rows.Scan(&k, &s.Cost, &s.Tokens, &s.Calls); err != nil {
			return nil, fmt.Errorf("read budget_spend: %w", err)
		}
		out[k] = s
	}
	return out, rows.Err()
}

// Charge implements Ledger: one transaction, an upsert per key.
func (l SQLite) Charge(ctx context.Context, keys []string, s Spend) error {
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	tx, err := l.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("charge budget_spend: %w", err)
	}
	defer tx.Rollback()
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `INSERT INTO budget_spend (scope, cost, tokens, calls, updated) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (scope) DO UPDATE SET cost = cost + excluded.cost, tokens = tokens + excluded.tokens,
			calls = calls + excluded.calls, updated = excluded.updated`, k, s.Cost, s.Tokens, s.Calls, now().UnixMilli()); err != nil {
			return fmt.Errorf("charge budget_spend %s: %w", k, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("charge budget_spend: %w", err)
	}
	return nil
}
