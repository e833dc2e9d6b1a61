package kb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite"     // the "sqlite" database/sql driver
	_ "modernc.org/sqlite/vec" // registers vec_distance_cosine and friends
)

// Options configure a Store. The zero value is usable: real time, crypto
// randomness and no embedder (search then runs on full text alone).
type Options struct {
	// Now returns the current time; tests pin it.
	Now func() time.Time
	// Rand is the source of token secrets; default crypto/rand.
	Rand io.Reader
	// Embedder turns text into vectors for hybrid search; nil means
	// full-text search only.
	Embedder Embedder
	// VisitIdle is how long start_session may go uncalled before the next
	// call starts a new visit (and a new delta). Default 30 minutes.
	VisitIdle time.Duration
	// SharedUserMemory (config kb.user_memory: shared) files what
	// remember_about_user records through a token limited to one project in
	// the general profile, readable by every token of the person. False
	// (isolated) keeps it in that project's own profile. See profileHome.
	SharedUserMemory bool
}

// Store is the knowledge base in one SQLite file.
type Store struct {
	db *database
	d  dialect
	// path is the SQLite file, or the PostgreSQL DSN with its password
	// masked; it names the store in messages.
	path      string
	now       func() time.Time
	rand      io.Reader
	emb       Embedder
	visitIdle time.Duration
	sharedMem bool
	// exactVectors is how many candidate vectors are still compared
	// exactly; tests lower it to exercise the shortlist.
	exactVectors int
	// rankWindow and commonFrom are the full-text limits (see rank.go);
	// tests lower them to exercise large-corpus behaviour on a few notes.
	rankWindow, commonFrom int
	// bits is the in-memory copy of the vector sign bits; bg runs its
	// loading, which Close stops (bgCancel) and waits for.
	bits     bitsCache
	bg       sync.WaitGroup
	bgCtx    context.Context
	bgCancel context.CancelFunc

	// wmu serialises this process's write transactions; other processes
	// are kept out by BEGIN IMMEDIATE and busy_timeout.
	wmu sync.Mutex
}

const sqliteMagic = "SQLite format 3\x00"

// Open opens (creating if needed) the knowledge base at path and brings its
// schema up to date. A file that is not a SQLite database, a database that
// is not a knowledge base, or one written by a newer yagent is refused with an
// error naming the path; such a file is never modified.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open kb %q: the path must be non-empty and contain no '?' or '#'", path)
	}
	if err := checkMagic(path); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "cache_size(-32000)") // 32 MB of page cache per connection
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open kb %s: %w", path, err)
	}
	return openStore(ctx, db, sqliteDialect{}, path, opts)
}

// openStore finishes Open and OpenPostgres: the options, then the schema.
func openStore(ctx context.Context, db *sql.DB, d dialect, path string, opts Options) (*Store, error) {
	s := &Store{db: &database{raw: db, d: d}, d: d, path: path, now: opts.Now, rand: opts.Rand, emb: opts.Embedder, visitIdle: opts.VisitIdle,
		sharedMem: opts.SharedUserMemory, exactVectors: defaultExactVectors, rankWindow: defaultRankWindow, commonFrom: defaultCommonFrom}
	s.bgCtx, s.bgCancel = context.WithCancel(context.WithoutCancel(ctx))
	if s.now == nil {
		s.now = time.Now
	}
	if s.rand == nil {
		s.rand = rand.Reader
	}
	if s.visitIdle <= 0 {
		s.visitIdle = 30 * time.Minute
	}
	if err := d.migrate(ctx, s); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// checkMagic refuses an existing non-empty file that is not SQLite before the
// driver gets a chance to touch it.
func checkMagic(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open kb %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	n, err := io.ReadFull(f, head)
	if n == 0 && (err == io.EOF || err == nil) {
		return nil
	}
	if string(head[:n]) != sqliteMagic {
		return fmt.Errorf("open kb %s: not a SQLite database (damaged or another kind of file); move it aside or pass another path, it was left untouched", path)
	}
	return nil
}

// Path reports the database file (for PostgreSQL, the DSN with its
// password masked).
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	s.bgCancel()
	s.bg.Wait()
	return s.db.raw.Close()
}

// nowMicro is the injected clock in storage units.
func (s *Store) nowMicro() int64 { return s.now().UTC().UnixMicro() }

func fromMicro(us int64) time.Time { return time.UnixMicro(us).UTC() }

// inTx runs fn in a write transaction, serialised with the other writes of
// this process and, through the database, of every other process (SQLite:
// BEGIN IMMEDIATE; PostgreSQL: a transaction-scoped advisory lock). fn's
// error rolls everything back.
func (s *Store) inTx(ctx context.Context, fn func(tx *txn) error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := s.d.lockWrites(ctx, tx); err != nil {
		tx.Rollback()
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
