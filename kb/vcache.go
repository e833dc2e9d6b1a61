package kb

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sync"
)

// bitsCache is a process's copy of note_vector_bits, for the Hamming
// shortlist of vector search: scanning 100 000 rows in SQL costs tens of
// milliseconds, comparing them in memory a fraction of one. It is never
// trusted blindly: before each use it reads the last sequence number of
// vector_changes (which triggers stamp on every change to the bits table,
// from any process) and applies the notes changed since. The first search
// of a process loads it in the background and ranks in SQL meanwhile.
type bitsCache struct {
	mu      sync.Mutex
	ready   bool
	loading bool
	seq     int64
	index   map[int64]int // note id -> position in entries
	entries []bitsEntry
}

type bitsEntry struct {
	id, domain, about int64 // about is 0 for none
	model             string
	dims              int
	words             []uint64 // the sign bits, little-endian 64-bit words
}

func (c *bitsCache) put(e bitsEntry) {
	if i, ok := c.index[e.id]; ok {
		c.entries[i] = e
		return
	}
	c.index[e.id] = len(c.entries)
	c.entries = append(c.entries, e)
}

func (c *bitsCache) remove(id int64) {
	i, ok := c.index[id]
	if !ok {
		return
	}
	last := len(c.entries) - 1
	c.entries[i] = c.entries[last]
	c.index[c.entries[i].id] = i
	c.entries = c.entries[:last]
	delete(c.index, id)
}

func packBits(b []byte) []uint64 {
	w := make([]uint64, (len(b)+7)/8)
	for i := range w {
		var buf [8]byte
		copy(buf[:], b[min(8*i, len(b)):min(8*i+8, len(b))])
		w[i] = binary.LittleEndian.Uint64(buf[:])
	}
	return w
}

const bitsColumns = "b.note_id, b.domain_id, coalesce(b.about_project, 0), b.model, b.dims, b.bits"

func scanBits(rows *sql.Rows) (bitsEntry, error) {
	var e bitsEntry
	var raw []byte
	err := rows.Scan(&e.id, &e.domain, &e.about, &e.model, &e.dims, &raw)
	e.words = packBits(raw)
	return e, err
}

// load reads the whole bits table in one read transaction (a consistent
// snapshot with its sequence number).
func (c *bitsCache) load(ctx context.Context, db *database) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var seq int64
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) FROM vector_changes").Scan(&seq); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, "SELECT "+bitsColumns+" FROM note_vector_bits b")
	if err != nil {
		return err
	}
	defer rows.Close()
	index := map[int64]int{}
	var entries []bitsEntry
	for rows.Next() {
		e, err := scanBits(rows)
		if err != nil {
			return err
		}
		index[e.id] = len(entries)
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq, c.index, c.entries, c.ready = seq, index, entries, true
	return nil
}

// current brings a ready cache up to the database's sequence number;
// false when the cache is not loaded yet.
func (c *bitsCache) current(ctx context.Context, q querier) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ready {
		return false, nil
	}
	var seq int64
	if err := q.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) FROM vector_changes").Scan(&seq); err != nil {
		return false, err
	}
	if seq == c.seq {
		return true, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT c.note_id, c.seq, b.note_id IS NOT NULL, coalesce(b.domain_id, 0),
		coalesce(b.about_project, 0), coalesce(b.model, ''), coalesce(b.dims, 0), b.bits
		FROM vector_changes c LEFT JOIN note_vector_bits b ON b.note_id = c.note_id WHERE c.seq > ?`, c.seq)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	for rows.Next() {
		var e bitsEntry
		var at int64
		var present bool
		var raw []byte
		if err := rows.Scan(&e.id, &at, &present, &e.domain, &e.about, &e.model, &e.dims, &raw); err != nil {
			return false, err
		}
		if present {
			e.words = packBits(raw)
			c.put(e)
		} else {
			c.remove(e.id)
		}
		c.seq = max(c.seq, at)
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	c.seq = max(c.seq, seq)
	return true, nil
}

// shortlist returns the ids of the n vectors in scope (of this model and
// dims) nearest to q by Hamming distance, ties by id — what the SQL
// shortlist returns.
func (c *bitsCache) shortlist(sc scope, model string, dims int, q []uint64, n int) []int64 {
	domains := map[int64]bool{}
	for _, d := range sc.domains {
		domains[d] = true
	}
	about := map[int64]bool{}
	for _, p := range sc.about {
		about[p] = true
	}
	type cand struct {
		id   int64
		dist int
	}
	c.mu.Lock()
	var cands []cand
	for i := range c.entries {
		e := &c.entries[i]
		if e.dims != dims || e.model != model || !domains[e.domain] || e.about != 0 && !about[e.about] || len(e.words) != len(q) {
			continue
		}
		d := 0
		for j, w := range e.words {
			d += bits.OnesCount64(w ^ q[j])
		}
		cands = append(cands, cand{e.id, d})
	}
	c.mu.Unlock()
	// Select without sorting everything: distances are small integers, so
	// a histogram gives the distance of the n-th nearest; only the
	// candidates up to it are sorted.
	hist := make([]int, dims+1)
	for _, c := range cands {
		hist[min(c.dist, dims)]++
	}
	cut, seen := dims, 0
	for d, count := range hist {
		if seen += count; seen >= n {
			cut = d
			break
		}
	}
	kept := cands[:0]
	for _, c := range cands {
		if c.dist <= cut {
			kept = append(kept, c)
		}
	}
	slices.SortFunc(kept, func(a, b cand) int {
		if x := cmp.Compare(a.dist, b.dist); x != 0 {
			return x
		}
		return cmp.Compare(a.id, b.id)
	})
	out := make([]int64, 0, min(n, len(kept)))
	for _, c := range kept[:min(n, len(kept))] {
		out = append(out, c.id)
	}
	return out
}

// warmBits starts loading the cache in the background, once.
func (s *Store) warmBits() {
	c := &s.bits
	c.mu.Lock()
	if c.ready || c.loading {
		c.mu.Unlock()
		return
	}
	c.loading = true
	c.mu.Unlock()
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		err := c.load(s.bgCtx, s.db)
		c.mu.Lock()
		c.loading = false
		c.mu.Unlock()
		_ = err // the next search tries again and ranks in SQL meanwhile
	}()
}

// cachedShortlist is the shortlist from the cache, or ok false when the
// cache is not loaded yet (it starts loading).
func (s *Store) cachedShortlist(ctx context.Context, sc scope, model string, qv []float32, n int) ([]int64, bool, error) {
	ok, err := s.bits.current(ctx, s.db)
	if err != nil {
		return nil, false, fmt.Errorf("vector search: %w", err)
	}
	if !ok {
		s.warmBits()
		return nil, false, nil
	}
	return s.bits.shortlist(sc, model, len(qv), packBits(quantizeBinary(qv)), n), true, nil
}
