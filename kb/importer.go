package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ImportReport summarises an import.
type ImportReport struct {
	Created int `json:"created"`
	Updated int `json:"updated"`
	// Moved are files renamed or moved in the folder since the last import,
	// recognised by their content: the note keeps its id and links.
	Moved   int `json:"moved"`
	Skipped int `json:"skipped" jsonschema:"unchanged since the last import (or trashed meanwhile)"`
	// Warnings are files imported with a change worth knowing: a title
	// another note of the folder already had (the note got its file name),
	// front matter that is not YAML (kept as text), unusable tags.
	Warnings []ImportNote `json:"warnings,omitempty"`
	// Pruned are notes whose files are gone, moved to the trash (Prune).
	Pruned []ImportNote `json:"pruned,omitempty"`
	// PendingLinks counts [[links]] of the project that name no note yet.
	PendingLinks int           `json:"pendingLinks"`
	Errors       []ImportError `json:"errors,omitempty"`
}

// ImportNote is a note an import did something notable to.
type ImportNote struct {
	Path    string `json:"path"`
	ID      string `json:"id,omitempty"`
	Title   string `json:"title"`
	Message string `json:"message,omitempty"`
}

// ImportError is a file that could not be imported.
type ImportError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// ImportOptions tune an import.
type ImportOptions struct {
	// Prune moves to the trash the notes of earlier imports whose files
	// are gone (a person can restore them).
	Prune bool
	// Progress, if not nil, is told after each file.
	Progress func(done, total int)
}

const (
	importChunk   = 100
	maxImportFile = maxBodyBytes
)

// Import brings a folder of Markdown files — an Obsidian vault, a docs
// tree — into a project. A note is known by its file's path under dir:
// subfolders become folders, titles need only be unique within a folder.
// Front matter gives type, tags and aliases (other fields are kept);
// [[links]] become edges and embedded attachments are recorded. Importing
// again creates only what is new, updates what changed, follows files that
// moved (same content, new path) and skips the rest; with Prune, notes whose
// files are gone go to the trash. A file that fails is reported and the
// others go on.
func (s *Store) Import(ctx context.Context, c Caller, dir, projectHandle string, opts ImportOptions) (ImportReport, error) {
	if err := c.requireWrite("import"); err != nil {
		return ImportReport{}, err
	}
	p, err := resolveProject(ctx, s.db, c, projectHandle)
	if err != nil {
		return ImportReport{}, err
	}
	files, err := markdownFiles(dir)
	if err != nil {
		return ImportReport{}, fmt.Errorf("import %s: %w", dir, err)
	}
	if opts.Prune && len(files) == 0 {
		return ImportReport{}, invalidf("import %s: the folder holds no Markdown files; --prune would trash every imported note of %s, so nothing was done (check the path)", dir, p.Handle)
	}
	im := &importer{s: s, c: c, dir: dir, files: map[string]bool{}, fresh: map[int64]bool{}}
	for _, f := range files {
		im.files[f] = true
	}
	if err := im.loadKnown(ctx, p.DomainID); err != nil {
		return ImportReport{}, fmt.Errorf("import %s: %w", dir, err)
	}
	for start := 0; start < len(files); start += importChunk {
		chunk := files[start:min(start+importChunk, len(files))]
		err := s.write(ctx, c, "import", func(w *wtx) error {
			w.deferLinks = true
			p, err := resolveProject(ctx, w, c, projectHandle)
			if err != nil {
				return err
			}
			for i, rel := range chunk {
				var outcome string
				err := w.savepoint(func() error {
					var err error
					outcome, err = im.importFile(w, p, rel)
					return err
				})
				switch {
				case err == nil:
					im.count(outcome)
				case ErrorCode(err) != "" || isFileError(err):
					im.rep.Errors = append(im.rep.Errors, ImportError{Path: rel, Message: err.Error()})
				default:
					return err
				}
				if opts.Progress != nil {
					opts.Progress(start+i+1, len(files))
				}
			}
			return nil
		})
		if err != nil {
			return im.rep, fmt.Errorf("import %s: %w", dir, err)
		}
	}
	if err := im.link(ctx, p.DomainID); err != nil {
		return im.rep, fmt.Errorf("import %s: %w", dir, err)
	}
	if opts.Prune {
		if err := im.prune(ctx, p.DomainID); err != nil {
			return im.rep, fmt.Errorf("import %s: prune: %w", dir, err)
		}
	}
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM links WHERE domain_id = ? AND to_note IS NULL", p.DomainID).Scan(&im.rep.PendingLinks); err != nil {
		return im.rep, fmt.Errorf("import %s: %w", dir, err)
	}
	return im.rep, nil
}

// importer is the state of one Import.
type importer struct {
	s     *Store
	c     Caller
	dir   string
	files map[string]bool // the folder's Markdown files, slash paths
	rep   ImportReport
	// known are the notes of earlier imports by file; orphans are those
	// whose file is gone, by content hash (a moved file has the same).
	known   map[string]knownNote
	orphans map[string][]int64
	// touched are notes whose body links must be (re)made; fresh are the
	// new ones among them (they have none yet).
	touched []int64
	fresh   map[int64]bool
	// pending are the current file's warnings, reported once it imported.
	pending []ImportNote
}

type knownNote struct {
	id      int64
	hash    string
	trashed bool
}

func (im *importer) count(outcome string) {
	switch outcome {
	case "created":
		im.rep.Created++
	case "updated":
		im.rep.Updated++
	case "moved":
		im.rep.Moved++
	case "skipped":
		im.rep.Skipped++
	}
	im.rep.Warnings = append(im.rep.Warnings, im.pending...)
	im.pending = nil
}

// loadKnown reads which files earlier imports made notes of.
func (im *importer) loadKnown(ctx context.Context, domain int64) error {
	rows, err := im.s.db.QueryContext(ctx, `SELECT id, source, coalesce(source_hash, ''), deleted_at IS NOT NULL
		FROM notes WHERE domain_id = ? AND source IS NOT NULL ORDER BY id`, domain)
	if err != nil {
		return err
	}
	defer rows.Close()
	im.known, im.orphans = map[string]knownNote{}, map[string][]int64{}
	for rows.Next() {
		var k knownNote
		var source string
		if err := rows.Scan(&k.id, &source, &k.hash, &k.trashed); err != nil {
			return err
		}
		im.known[source] = k
		if !im.files[source] && !k.trashed {
			im.orphans[k.hash] = append(im.orphans[k.hash], k.id)
		}
	}
	return rows.Err()
}

type fileError struct{ err error }

func (e fileError) Error() string { return e.err.Error() }
func (e fileError) Unwrap() error { return e.err }

func isFileError(err error) bool {
	var fe fileError
	return errors.As(err, &fe)
}

// markdownFiles lists the .md files under dir as slash paths, skipping
// hidden entries and symlinks, in lexical order.
func markdownFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 || d.IsDir() {
			return nil
		}
		if ext := strings.ToLower(filepath.Ext(p)); ext == ".md" || ext == ".markdown" {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// importFile creates, updates, moves or skips the note of one file.
func (im *importer) importFile(w *wtx, p project, rel string) (string, error) {
	im.pending = nil
	data, err := os.ReadFile(filepath.Join(im.dir, filepath.FromSlash(rel)))
	if err != nil {
		return "", fileError{err}
	}
	if len(data) > maxImportFile {
		return "", invalidf("file is %d bytes, more than %d", len(data), maxImportFile)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	folder := ""
	if d := path.Dir(rel); d != "." {
		if folder, err = normalizeFolder(d); err != nil {
			return "", err
		}
	}
	stem := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	k, found := im.known[rel]
	if found && (k.hash == hash || k.trashed) {
		return "skipped", nil
	}
	doc, err := parseMarkdownFile(data, stem)
	if err != nil {
		return "", err
	}
	for _, w := range doc.warnings {
		im.pending = append(im.pending, ImportNote{Path: rel, Title: doc.title, Message: w})
	}
	outcome := "created"
	switch {
	case found:
		outcome = "updated"
	case len(im.orphans[hash]) > 0:
		// The same content under a new path: the file was moved or renamed.
		k, found, outcome = knownNote{id: im.orphans[hash][0], hash: hash}, true, "moved"
	}
	n := noteRow{DomainID: p.DomainID, ProjectID: p.ID, Class: ClassUserDoc, Folder: folder, Title: doc.title,
		Body: doc.body, Type: doc.typ, Tags: doc.tags, Frontmatter: doc.frontmatter, Source: rel, SourceHash: hash}
	var before noteRow
	if found {
		var ok bool
		if before, ok, err = getNoteRow(w.ctx, w, k.id); err != nil {
			return "", err
		} else if !ok {
			return "", fmt.Errorf("imported note %s is gone", noteRef(k.id))
		}
		n.ID, n.Version = before.ID, before.Version
	}
	if err := im.freeTitle(w, &n, rel, stem); err != nil {
		return "", err
	}
	if found {
		err = w.saveNote(before, &n, "import")
	} else {
		err = w.insertNote(&n, "import")
	}
	if err != nil {
		return "", err
	}
	if stemTitle := cleanTitle(stem); titleKey(stemTitle) != titleKey(n.Title) && validateTitle(stemTitle) == nil {
		if err := w.addAlias(n, stemTitle, "file"); err != nil {
			return "", err
		}
	}
	for _, a := range doc.aliases {
		if a != "" && titleKey(a) != titleKey(n.Title) && validateTitle(a) == nil {
			if err := w.addAlias(n, a, "alias"); err != nil {
				return "", err
			}
		}
	}
	if outcome == "moved" {
		im.orphans[hash] = im.orphans[hash][1:]
	}
	im.touched = append(im.touched, n.ID)
	if !found {
		im.fresh[n.ID] = true
	}
	return outcome, nil
}

// freeTitle keeps n's title unless another live note of its folder has it:
// then the file's name, else "title (file name)", and the report says which
// note had it.
func (im *importer) freeTitle(w *wtx, n *noteRow, rel, stem string) error {
	want := n.Title
	owner, err := liveTitleOwner(w.ctx, w, n.DomainID, n.Folder, want)
	if err != nil || owner == 0 || owner == n.ID {
		return err
	}
	other := noteRef(owner)
	if o, ok, _ := getNoteRow(w.ctx, w, owner); ok && o.Source != "" {
		other = o.Source
	}
	for _, t := range []string{cleanTitle(stem), cleanTitle(want + " (" + stem + ")")} {
		if validateTitle(t) != nil {
			continue
		}
		id, err := liveTitleOwner(w.ctx, w, n.DomainID, n.Folder, t)
		if err != nil {
			return err
		}
		if id == 0 || id == n.ID {
			n.Title = t
			im.pending = append(im.pending, ImportNote{Path: rel, Title: t,
				Message: fmt.Sprintf("titled %q: %q is the title of %s in the same folder", t, want, other)})
			return nil
		}
	}
	return titleTaken(w.ctx, w, owner, want, n.Folder, "give one of the files another title")
}

// link makes the body links and attachments of the notes the import
// created or changed, once all of them exist, then resolves the project's
// pending links against the notes that arrived.
func (im *importer) link(ctx context.Context, domain int64) error {
	if len(im.touched) == 0 {
		return nil
	}
	for start := 0; start < len(im.touched); start += importChunk {
		chunk := im.touched[start:min(start+importChunk, len(im.touched))]
		err := im.s.write(ctx, im.c, "import", func(w *wtx) error {
			for _, id := range chunk {
				n, ok, err := getNoteRow(ctx, w, id)
				if err != nil {
					return err
				}
				switch {
				case !ok:
				case im.fresh[id]:
					err = w.addBodyRefs(n)
				default:
					err = w.syncBodyRefs(n)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return im.s.write(ctx, im.c, "import", func(w *wtx) error { return w.resolvePending(domain) })
}

// resolvePending tries every pending link of domain again.
func (w *wtx) resolvePending(domain int64) error {
	rows, err := w.QueryContext(w.ctx, `SELECT l.id, l.to_title, f.folder FROM links l JOIN notes f ON f.id = l.from_note
		WHERE l.domain_id = ? AND l.to_note IS NULL`, domain)
	if err != nil {
		return err
	}
	type pending struct {
		id            int64
		title, folder string
	}
	var all []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.id, &p.title, &p.folder); err != nil {
			rows.Close()
			return err
		}
		all = append(all, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, p := range all {
		id, _, err := resolveRef(w.ctx, w, domain, p.title, p.folder)
		if err != nil {
			return err
		}
		if id == 0 {
			continue
		}
		res, err := w.ExecContext(w.ctx, `UPDATE links SET to_note = ?1, target = ?2 WHERE id = ?3 AND NOT EXISTS
			(SELECT 1 FROM links o WHERE o.from_note = links.from_note AND o.type = links.type AND o.target = ?2)`, id, noteRef(id), p.id)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			// The same edge to that note exists already.
			if _, err := w.ExecContext(w.ctx, "DELETE FROM links WHERE id = ?", p.id); err != nil {
				return err
			}
		}
	}
	return nil
}

// prune moves to the trash the live notes of earlier imports whose files
// are not in the folder any more (and did not move).
func (im *importer) prune(ctx context.Context, domain int64) error {
	var gone []int64
	for _, ids := range im.orphans {
		gone = append(gone, ids...)
	}
	slices.Sort(gone)
	for start := 0; start < len(gone); start += importChunk {
		chunk := gone[start:min(start+importChunk, len(gone))]
		err := im.s.write(ctx, im.c, "import", func(w *wtx) error {
			for _, id := range chunk {
				n, ok, err := getNoteRow(ctx, w, id)
				if err != nil {
					return err
				}
				if !ok || n.DeletedAt != 0 || n.DomainID != domain {
					continue
				}
				if err := w.setTrashed(n, true); err != nil {
					return err
				}
				im.rep.Pruned = append(im.rep.Pruned, ImportNote{Path: n.Source, ID: noteRef(n.ID), Title: n.Title,
					Message: "its file is gone; moved to the trash"})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
