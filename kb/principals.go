package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Principal is a person; their agents act for them through tokens.
type Principal struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// CreatePrincipal adds a person and their personal domain (where the user
// profile and the agents' private memory live).
func (s *Store) CreatePrincipal(ctx context.Context, name string) (Principal, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Principal{}, fmt.Errorf("create principal: empty name")
	}
	p := Principal{Name: name, CreatedAt: fromMicro(s.nowMicro())}
	err := s.inTx(ctx, func(tx *txn) error {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM principals WHERE name = ?", name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("principal %q already exists", name)
		}
		err := tx.QueryRowContext(ctx, "INSERT INTO principals(name, created_at) VALUES (?, ?) RETURNING id", name, p.CreatedAt.UnixMicro()).Scan(&p.ID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO domains(owner_id) VALUES (?)", p.ID)
		return err
	})
	if err != nil {
		return Principal{}, fmt.Errorf("create principal %q: %w", name, err)
	}
	return p, nil
}

// Principals lists every principal by id.
func (s *Store) Principals(ctx context.Context) ([]Principal, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id, name, created_at FROM principals ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("list principals: %w", err)
	}
	defer rows.Close()
	var out []Principal
	for rows.Next() {
		var p Principal
		var at int64
		if err := rows.Scan(&p.ID, &p.Name, &at); err != nil {
			return nil, fmt.Errorf("list principals: %w", err)
		}
		p.CreatedAt = fromMicro(at)
		out = append(out, p)
	}
	return out, rows.Err()
}

func (s *Store) principalName(ctx context.Context, q querier, id int64) (string, error) {
	var name string
	err := q.QueryRowContext(ctx, "SELECT name FROM principals WHERE id = ?", id).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("principal %d does not exist", id)
	}
	return name, err
}

// personalDomain is the domain holding principal's profile and memory.
func personalDomain(ctx context.Context, q querier, principal int64) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, "SELECT id FROM domains WHERE owner_id = ?", principal).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("principal %d does not exist", principal)
	}
	if err != nil {
		return 0, fmt.Errorf("personal domain of principal %d: %w", principal, err)
	}
	return id, nil
}

func principalRef(id int64) string { return "p" + strconv.FormatInt(id, 10) }
