package kb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// ErrUnauthenticated is returned by Authenticate for an unknown or revoked token.
var ErrUnauthenticated = errors.New("unknown or revoked kb token")

// TokenSpec describes a token to create.
type TokenSpec struct {
	Name string
	// Write allows write tools; otherwise the token sees read tools only.
	Write bool
	// Projects limits the token to these project handles; empty means every
	// project its principal is a member of (now and later).
	Projects []string
}

// Token is a token as listed; its secret is never stored or shown again.
type Token struct {
	ID        int64      `json:"id"`
	Name      string     `json:"name"`
	Write     bool       `json:"write"`
	Projects  []string   `json:"projects,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
}

const tokenPrefix = "ykb_"

func hashToken(plaintext string) string {
	sum := sha256.Sum256([]byte(plaintext))
	return hex.EncodeToString(sum[:])
}

// CreateToken issues a token for the person's agents. The plaintext is
// returned once; only its sha256 is stored.
func (s *Store) CreateToken(ctx context.Context, person Caller, spec TokenSpec) (string, Token, error) {
	if err := person.requirePerson("creating a token"); err != nil {
		return "", Token{}, err
	}
	name := strings.TrimSpace(spec.Name)
	if name == "" {
		return "", Token{}, invalidf("a token needs a name")
	}
	secret := make([]byte, 20)
	if _, err := io.ReadFull(s.rand, secret); err != nil {
		return "", Token{}, fmt.Errorf("create token %s: read randomness: %w", name, err)
	}
	plaintext := tokenPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(secret))
	tok := Token{Name: name, Write: spec.Write, CreatedAt: fromMicro(s.nowMicro())}
	err := s.inTx(ctx, func(tx *txn) error {
		var ids []int64
		for _, h := range spec.Projects {
			p, err := resolveProject(ctx, tx, person, h)
			if err != nil {
				return err
			}
			ids = append(ids, p.ID)
			tok.Projects = append(tok.Projects, p.Handle)
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM tokens WHERE principal_id = ? AND name = ? AND revoked_at IS NULL", person.PrincipalID, name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return conflictf("a live token named %q already exists; revoke it or pick another name", name)
		}
		err := tx.QueryRowContext(ctx, "INSERT INTO tokens(principal_id, name, hash, write, scoped, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
			person.PrincipalID, name, hashToken(plaintext), spec.Write, len(ids) > 0, tok.CreatedAt.UnixMicro()).Scan(&tok.ID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, "INSERT INTO token_projects(token_id, project_id) VALUES (?, ?) ON CONFLICT DO NOTHING", tok.ID, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", Token{}, fmt.Errorf("create token %s: %w", name, err)
	}
	return plaintext, tok, nil
}

// ListTokens lists the person's tokens, revoked ones included, by id.
func (s *Store) ListTokens(ctx context.Context, person Caller) ([]Token, error) {
	if err := person.requirePerson("listing tokens"); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT t.id, t.name, t.write, t.created_at, t.revoked_at,
		coalesce((SELECT `+s.d.stringAgg("p.handle", "' '")+` FROM token_projects tp JOIN projects p ON p.id = tp.project_id WHERE tp.token_id = t.id), '')
		FROM tokens t WHERE t.principal_id = ? ORDER BY t.id`, person.PrincipalID)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	var out []Token
	for rows.Next() {
		var t Token
		var created int64
		var revoked sql.NullInt64
		var handles string
		if err := rows.Scan(&t.ID, &t.Name, &t.Write, &created, &revoked, &handles); err != nil {
			return nil, fmt.Errorf("list tokens: %w", err)
		}
		t.CreatedAt = fromMicro(created)
		if revoked.Valid {
			r := fromMicro(revoked.Int64)
			t.RevokedAt = &r
		}
		t.Projects = strings.Fields(handles)
		out = append(out, t)
	}
	return out, rows.Err()
}

// RevokeToken revokes the person's live token named nameOrID (a name, or
// an id such as "t3" or "3").
func (s *Store) RevokeToken(ctx context.Context, person Caller, nameOrID string) error {
	if err := person.requirePerson("revoking a token"); err != nil {
		return err
	}
	id, _ := strconv.ParseInt(strings.TrimPrefix(nameOrID, "t"), 10, 64)
	return s.inTx(ctx, func(tx *txn) error {
		res, err := tx.ExecContext(ctx, `UPDATE tokens SET revoked_at = ? WHERE principal_id = ? AND revoked_at IS NULL
			AND (name = ? OR id = ?)`, s.nowMicro(), person.PrincipalID, nameOrID, id)
		if err != nil {
			return fmt.Errorf("revoke token %s: %w", nameOrID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFoundf("no live token %q; list tokens to see their names", nameOrID)
		}
		return nil
	})
}

// Authenticate turns a token's plaintext into the Caller it stands for (an
// agent of the token's principal). Set Client and Session on the result.
func (s *Store) Authenticate(ctx context.Context, plaintext string) (Caller, error) {
	if !strings.HasPrefix(plaintext, tokenPrefix) {
		return Caller{}, ErrUnauthenticated
	}
	c := Caller{Kind: KindAgent}
	var scoped bool
	err := s.db.QueryRowContext(ctx, "SELECT id, principal_id, write, scoped FROM tokens WHERE hash = ? AND revoked_at IS NULL",
		hashToken(plaintext)).Scan(&c.TokenID, &c.PrincipalID, &c.Write, &scoped)
	if errors.Is(err, sql.ErrNoRows) {
		return Caller{}, ErrUnauthenticated
	}
	if err != nil {
		return Caller{}, fmt.Errorf("authenticate: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, "SELECT project_id FROM token_projects WHERE token_id = ? ORDER BY project_id", c.TokenID)
	if err != nil {
		return Caller{}, fmt.Errorf("authenticate: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return Caller{}, fmt.Errorf("authenticate: %w", err)
		}
		c.ProjectIDs = append(c.ProjectIDs, id)
	}
	if err := rows.Err(); err != nil {
		return Caller{}, fmt.Errorf("authenticate: %w", err)
	}
	if scoped && len(c.ProjectIDs) == 0 {
		// Every project it was limited to is gone: it reaches none, not all.
		c.ProjectIDs = []int64{0}
	}
	return c, nil
}
