package kb

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// wtx is one write transaction with the provenance every row it writes gets.
type wtx struct {
	*txn
	ctx  context.Context
	c    Caller
	tool string
	at   int64
	// embed collects notes whose text changed, embedded after commit.
	embed []int64
	// deferLinks leaves body links and attachments to the caller (import
	// syncs them once every file of the batch has its note, so a link
	// resolves the same whatever the order of the files).
	deferLinks bool
}

// write runs fn as one transaction on behalf of c through tool, then
// refreshes the vectors of the notes it changed (best effort).
func (s *Store) write(ctx context.Context, c Caller, tool string, fn func(w *wtx) error) error {
	if err := c.requireWrite(tool); err != nil {
		return err
	}
	var embed []int64
	err := s.inTx(ctx, func(tx *txn) error {
		w := &wtx{txn: tx, ctx: ctx, c: c, tool: tool, at: s.nowMicro()}
		if err := fn(w); err != nil {
			return err
		}
		embed = w.embed
		return nil
	})
	if err == nil && len(embed) > 0 {
		s.embedNotes(ctx, embed)
	}
	return err
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

func (w *wtx) activity(domain, note int64, action, detail string) error {
	_, err := w.ExecContext(w.ctx, `INSERT INTO activity(at, domain_id, note_id, action, detail, by_kind,
		principal_id, token_id, tool, client, session) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.at, nullID(domain), nullID(note), action, detail, string(w.c.Kind), w.c.PrincipalID,
		nullID(w.c.TokenID), w.tool, w.c.Client, w.c.Session)
	if err != nil {
		return fmt.Errorf("record activity: %w", err)
	}
	return nil
}

// revision snapshots the note's current row as a revision made by w.
func (w *wtx) revision(note int64, action string) error {
	_, err := w.ExecContext(w.ctx, `INSERT INTO revisions(note_id, version, action, title, folder, body, type, tags,
		at, by_kind, principal_id, token_id, tool, client, session)
		SELECT id, version, ?, title, folder, body, type, tags, ?, ?, ?, ?, ?, ?, ? FROM notes WHERE id = ?`,
		action, w.at, string(w.c.Kind), w.c.PrincipalID, nullID(w.c.TokenID), w.tool, w.c.Client, w.c.Session, note)
	if err != nil {
		return fmt.Errorf("record revision of %s: %w", noteRef(note), err)
	}
	return nil
}

// insertNote stores a new note (version 1) with its tags, body links,
// revision and activity, and resolves forward references to it.
func (w *wtx) insertNote(n *noteRow, action string) error {
	if owner, err := liveTitleOwner(w.ctx, w, n.DomainID, n.Folder, n.Title); err != nil {
		return err
	} else if owner != 0 {
		return titleTaken(w.ctx, w, owner, n.Title, n.Folder, "edit it with edit_note, or pick another title or folder")
	}
	if n.Frontmatter == "" {
		n.Frontmatter = "{}"
	}
	n.Version = 1
	n.ContentHash = contentHash(n.Title, n.Body, n.Type, n.Tags, n.Frontmatter)
	n.CreatedAt, n.UpdatedAt = w.at, w.at
	err := w.QueryRowContext(w.ctx, `INSERT INTO notes(domain_id, class, about_project, folder, title, title_key,
		body, type, tags, frontmatter, version, content_hash, source, source_hash, created_at, updated_at,
		headings, search_prior)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		n.DomainID, n.Class, nullID(n.AboutProject), n.Folder, n.Title, titleKey(n.Title), n.Body, n.Type,
		strings.Join(n.Tags, " "), n.Frontmatter, n.ContentHash, nullStr(n.Source), nullStr(n.SourceHash), w.at, w.at,
		headingText(n.Body), searchPrior(*n)).Scan(&n.ID)
	if err != nil {
		return fmt.Errorf("insert note %q: %w", n.Title, err)
	}
	if err := w.syncTags(n.ID, nil, n.Tags); err != nil {
		return err
	}
	if !w.deferLinks {
		if err := w.addBodyRefs(*n); err != nil {
			return err
		}
		if err := w.resolveForward(*n); err != nil {
			return err
		}
	}
	if err := w.revision(n.ID, action); err != nil {
		return err
	}
	w.embed = append(w.embed, n.ID)
	return w.activity(n.DomainID, n.ID, action, n.Title)
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// saveNote writes after over before as the next version. The update is a
// compare-and-swap on before.Version, so a concurrent writer that got there
// first makes this one fail with *ConflictError and change nothing.
func (w *wtx) saveNote(before noteRow, after *noteRow, action string) error {
	placeChanged := titleKey(after.Title) != titleKey(before.Title) || after.Folder != before.Folder
	if placeChanged {
		if owner, err := liveTitleOwner(w.ctx, w, after.DomainID, after.Folder, after.Title); err != nil {
			return err
		} else if owner != 0 && owner != after.ID {
			return titleTaken(w.ctx, w, owner, after.Title, after.Folder, "pick another title or folder")
		}
	}
	after.ContentHash = contentHash(after.Title, after.Body, after.Type, after.Tags, after.Frontmatter)
	after.Version = before.Version + 1
	after.UpdatedAt = w.at
	res, err := w.ExecContext(w.ctx, `UPDATE notes SET folder = ?, title = ?, title_key = ?, body = ?, type = ?,
		tags = ?, frontmatter = ?, version = ?, content_hash = ?, source = ?, source_hash = ?, updated_at = ?,
		headings = ?, search_prior = ?
		WHERE id = ? AND version = ?`,
		after.Folder, after.Title, titleKey(after.Title), after.Body, after.Type, strings.Join(after.Tags, " "),
		after.Frontmatter, after.Version, after.ContentHash, nullStr(after.Source), nullStr(after.SourceHash), w.at,
		headingText(after.Body), searchPrior(*after), before.ID, before.Version)
	if err != nil {
		return fmt.Errorf("update note %s: %w", noteRef(before.ID), err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		cur, _, err := getNoteRow(w.ctx, w, before.ID)
		if err != nil {
			return err
		}
		return &ConflictError{NoteID: noteRef(before.ID), CurrentToken: cur.versionToken()}
	}
	if !slices.Equal(before.Tags, after.Tags) {
		if err := w.syncTags(after.ID, before.Tags, after.Tags); err != nil {
			return err
		}
	}
	if before.Body != after.Body && !w.deferLinks {
		if err := w.syncBodyRefs(*after); err != nil {
			return err
		}
	}
	if before.Title != after.Title {
		if err := w.retitle(before, *after); err != nil {
			return err
		}
	}
	if (placeChanged || before.Source != after.Source) && !w.deferLinks {
		if err := w.resolveForward(*after); err != nil {
			return err
		}
	}
	if before.ContentHash != after.ContentHash {
		if err := w.dropVector(after.ID); err != nil {
			return err
		}
		w.embed = append(w.embed, after.ID)
	}
	if err := w.revision(after.ID, action); err != nil {
		return err
	}
	return w.activity(after.DomainID, after.ID, action, after.Title)
}

// retitle keeps the old title as an alias (so [[Old]] still resolves).
func (w *wtx) retitle(before, after noteRow) error {
	if titleKey(before.Title) == titleKey(after.Title) {
		return nil
	}
	if err := w.addAlias(before, before.Title, "former"); err != nil {
		return err
	}
	_, err := w.ExecContext(w.ctx, "DELETE FROM title_aliases WHERE domain_id = ? AND title_key = ? AND note_id = ?",
		after.DomainID, titleKey(after.Title), after.ID)
	return err
}

// addAlias records another title n answers to: a former title, an alias
// from front matter or an imported file's name. A former title moves to n
// from whichever note had it; the others are only added.
func (w *wtx) addAlias(n noteRow, title, kind string) error {
	if kind == "former" {
		if _, err := w.ExecContext(w.ctx, "DELETE FROM title_aliases WHERE domain_id = ? AND title_key = ? AND kind = 'former'",
			n.DomainID, titleKey(title)); err != nil {
			return fmt.Errorf("keep alias %q: %w", title, err)
		}
	}
	if _, err := w.ExecContext(w.ctx, `INSERT INTO title_aliases(domain_id, title_key, title, note_id, kind, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(domain_id, title_key, note_id) DO UPDATE SET title = excluded.title,
		kind = excluded.kind, created_at = excluded.created_at`,
		n.DomainID, titleKey(title), title, n.ID, kind, w.at); err != nil {
		return fmt.Errorf("keep alias %q: %w", title, err)
	}
	if w.deferLinks {
		return nil // the import resolves pending links once at the end
	}
	return w.resolveKeys(n.DomainID, n.ID, []string{titleKey(title)})
}

func (w *wtx) syncTags(note int64, before, after []string) error {
	for _, t := range before {
		if !slices.Contains(after, t) {
			if _, err := w.ExecContext(w.ctx, "DELETE FROM note_tags WHERE note_id = ? AND tag = ?", note, t); err != nil {
				return fmt.Errorf("untag %s: %w", noteRef(note), err)
			}
		}
	}
	for _, t := range after {
		if _, err := w.ExecContext(w.ctx, "INSERT INTO note_tags(note_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING", note, t); err != nil {
			return fmt.Errorf("tag %s: %w", noteRef(note), err)
		}
	}
	return nil
}

// syncBodyRefs makes the note's "wikilink" edges match the [[links]] in its
// body, and its attachments the files it embeds or links.
func (w *wtx) syncBodyRefs(n noteRow) error {
	if _, err := w.ExecContext(w.ctx, "DELETE FROM links WHERE from_note = ? AND origin = 'body'", n.ID); err != nil {
		return fmt.Errorf("clear links of %s: %w", noteRef(n.ID), err)
	}
	if _, err := w.ExecContext(w.ctx, "DELETE FROM attachments WHERE note_id = ?", n.ID); err != nil {
		return fmt.Errorf("clear attachments of %s: %w", noteRef(n.ID), err)
	}
	return w.addBodyRefs(n)
}

// addBodyRefs adds the edges and attachments of the body of a note that
// has none yet.
func (w *wtx) addBodyRefs(n noteRow) error {
	refs := parseBodyRefs(n.Body)
	for _, target := range refs.links {
		if _, _, err := w.insertLink(n, LinkWiki, 0, target, "body"); err != nil {
			return err
		}
	}
	for _, name := range refs.attachments {
		if _, err := w.ExecContext(w.ctx, "INSERT INTO attachments(note_id, name) VALUES (?, ?) ON CONFLICT DO NOTHING", n.ID, name); err != nil {
			return fmt.Errorf("attachment %q of %s: %w", name, noteRef(n.ID), err)
		}
	}
	return nil
}

// LinkWiki is the type of the edges made from [[wiki links]] in bodies.
const LinkWiki = "wikilink"

// insertLink adds the edge from→(toID, or the note toTitle names, or a
// forward reference to that title). It is idempotent: created is false when
// the same edge already existed. resolved is the target id, 0 if pending.
func (w *wtx) insertLink(from noteRow, typ string, toID int64, toTitle, origin string) (created bool, resolved int64, err error) {
	resolved = toID
	if resolved == 0 {
		if resolved, _, err = resolveRef(w.ctx, w, from.DomainID, toTitle, from.Folder); err != nil {
			return false, 0, err
		}
	}
	target := "t:" + titleKey(toTitle)
	if resolved != 0 {
		target = noteRef(resolved)
	}
	res, err := w.ExecContext(w.ctx, `INSERT INTO links(domain_id, from_note, type, to_note, to_title, to_key,
		target, origin, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		from.DomainID, from.ID, typ, nullID(resolved), toTitle, titleKey(toTitle), target, origin, w.at)
	if err != nil {
		return false, 0, fmt.Errorf("link %s to %q: %w", noteRef(from.ID), toTitle, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, resolved, nil
}

// resolveForward points pending references that name n — by title, by
// path, by the file it came from, each with or without "#heading" — at n.
func (w *wtx) resolveForward(n noteRow) error {
	return w.resolveKeys(n.DomainID, n.ID, refKeys(n))
}

// resolveKeys points pending references with one of the keys (or "key#…")
// at note id. A pending edge that duplicates an existing resolved one is
// dropped. Most writes find nothing pending: one indexed range read per key.
func (w *wtx) resolveKeys(domain, id int64, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	// [k, k + "$") holds k, "k#heading" and a few longer keys, told apart
	// below; '$' follows '#'. One indexed range read per key, in one query.
	var parts []string
	args := []any{domain}
	for _, k := range keys {
		parts = append(parts, "SELECT id, to_key FROM links INDEXED BY links_pending WHERE domain_id = ?1 AND to_note IS NULL AND to_key >= ? AND to_key < ?")
		args = append(args, k, k+"$")
	}
	rows, err := w.QueryContext(w.ctx, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return fmt.Errorf("resolve links to %s: %w", noteRef(id), err)
	}
	var pending []int64
	for rows.Next() {
		var lid int64
		var key string
		if err := rows.Scan(&lid, &key); err != nil {
			rows.Close()
			return fmt.Errorf("resolve links to %s: %w", noteRef(id), err)
		}
		for _, k := range keys {
			if key == k || strings.HasPrefix(key, k+"#") {
				pending = append(pending, lid)
				break
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("resolve links to %s: %w", noteRef(id), err)
	}
	slices.Sort(pending)
	for _, lid := range slices.Compact(pending) {
		res, err := w.ExecContext(w.ctx, `UPDATE links SET to_note = ?1, target = ?2 WHERE id = ?3 AND NOT EXISTS
			(SELECT 1 FROM links o WHERE o.from_note = links.from_note AND o.type = links.type AND o.target = ?2)`, id, noteRef(id), lid)
		if err != nil {
			return fmt.Errorf("resolve links to %s: %w", noteRef(id), err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// The same edge to that note exists already.
			if _, err := w.ExecContext(w.ctx, "DELETE FROM links WHERE id = ?", lid); err != nil {
				return fmt.Errorf("resolve links to %s: %w", noteRef(id), err)
			}
		}
	}
	return nil
}
