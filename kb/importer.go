package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// ImportReport summarises an import.
type ImportReport struct {
	Created int           `json:"created"`
	Updated int           `json:"updated"`
	Skipped int           `json:"skipped" jsonschema:"unchanged since the last import (or trashed meanwhile)"`
	Errors  []ImportError `json:"errors,omitempty"`
}

// ImportError is a file that could not be imported.
type ImportError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

const (
	importChunk   = 100
	maxImportFile = maxBodyBytes
)

// Import brings a folder of Markdown files into a project: front matter
// gives type, tags, aliases and other fields, [[links]] become edges, and
// subfolders become folders. Each file is identified by its path relative
// to dir and its content hash, so importing again creates only what is new,
// updates what changed and skips the rest. A file that fails is reported
// and the others go on. progress, if not nil, is told after each file.
func (s *Store) Import(ctx context.Context, c Caller, dir, projectHandle string, progress func(done, total int)) (ImportReport, error) {
	if err := c.requireWrite("import"); err != nil {
		return ImportReport{}, err
	}
	if _, err := resolveProject(ctx, s.db, c, projectHandle); err != nil {
		return ImportReport{}, err
	}
	files, err := markdownFiles(dir)
	if err != nil {
		return ImportReport{}, fmt.Errorf("import %s: %w", dir, err)
	}
	rep := ImportReport{}
	for start := 0; start < len(files); start += importChunk {
		chunk := files[start:min(start+importChunk, len(files))]
		err := s.write(ctx, c, "import", func(w *wtx) error {
			p, err := resolveProject(ctx, w, c, projectHandle)
			if err != nil {
				return err
			}
			for i, rel := range chunk {
				var outcome string
				err := w.savepoint(func() error {
					var err error
					outcome, err = w.importFile(p, dir, rel)
					return err
				})
				switch {
				case err == nil:
				case ErrorCode(err) != "" || isFileError(err):
					rep.Errors = append(rep.Errors, ImportError{Path: rel, Message: err.Error()})
				default:
					return err
				}
				switch outcome {
				case "created":
					rep.Created++
				case "updated":
					rep.Updated++
				case "skipped":
					rep.Skipped++
				}
				if progress != nil {
					progress(start+i+1, len(files))
				}
			}
			return nil
		})
		if err != nil {
			return rep, fmt.Errorf("import %s: %w", dir, err)
		}
	}
	return rep, nil
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

// importFile creates, updates or skips the note of one file.
func (w *wtx) importFile(p project, dir, rel string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return "", fileError{err}
	}
	if len(data) > maxImportFile {
		return "", invalidf("file is %d bytes, more than %d", len(data), maxImportFile)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	folder, err := normalizeFolder(path.Dir(rel))
	if path.Dir(rel) == "." {
		folder, err = "", nil
	}
	if err != nil {
		return "", err
	}
	doc, err := parseMarkdownFile(data, strings.TrimSuffix(path.Base(rel), path.Ext(rel)))
	if err != nil {
		return "", err
	}
	existing, found, err := noteBySource(w.ctx, w, p.DomainID, rel)
	if err != nil {
		return "", err
	}
	switch {
	case found && (existing.SourceHash == hash || existing.DeletedAt != 0):
		return "skipped", nil
	case found:
		after := existing
		after.Folder, after.Title, after.Body, after.Type, after.Tags, after.Frontmatter, after.SourceHash =
			folder, doc.title, doc.body, doc.typ, doc.tags, doc.frontmatter, hash
		if err := w.saveNote(existing, &after, "import"); err != nil {
			return "", err
		}
		return "updated", w.addAliases(after, doc.aliases)
	}
	n := noteRow{DomainID: p.DomainID, ProjectID: p.ID, Class: ClassUserDoc, Folder: folder, Title: doc.title,
		Body: doc.body, Type: doc.typ, Tags: doc.tags, Frontmatter: doc.frontmatter, Source: rel, SourceHash: hash}
	if err := w.insertNote(&n, "import"); err != nil {
		return "", err
	}
	return "created", w.addAliases(n, doc.aliases)
}

func noteBySource(ctx context.Context, q querier, domain int64, source string) (noteRow, bool, error) {
	rows, err := q.QueryContext(ctx, noteSelect+" WHERE n.domain_id = ? AND n.source = ?", domain, source)
	if err != nil {
		return noteRow{}, false, fmt.Errorf("find imported %s: %w", source, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return noteRow{}, false, rows.Err()
	}
	n, err := scanNote(rows)
	return n, err == nil, err
}

// addAliases records front matter aliases as former titles of n, unless
// another note holds them.
func (w *wtx) addAliases(n noteRow, aliases []string) error {
	for _, a := range aliases {
		if a == "" || titleKey(a) == titleKey(n.Title) {
			continue
		}
		if _, err := w.ExecContext(w.ctx, `INSERT OR IGNORE INTO title_aliases(domain_id, title_key, title, note_id, created_at)
			VALUES (?, ?, ?, ?, ?)`, n.DomainID, titleKey(a), a, n.ID, w.at); err != nil {
			return fmt.Errorf("alias %q: %w", a, err)
		}
		if err := w.resolveForward(n.DomainID, n.ID, a); err != nil {
			return err
		}
	}
	return nil
}

type markdownDoc struct {
	title, body, typ string
	tags, aliases    []string
	frontmatter      string // JSON of the remaining front matter fields
}

// parseMarkdownFile splits YAML front matter from the body and takes the
// title from front matter, else the leading '# H1', else the file name.
func parseMarkdownFile(data []byte, stem string) (markdownDoc, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if err := validateBody(text); err != nil {
		return markdownDoc{}, err
	}
	var doc markdownDoc
	fm := map[string]any{}
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		end := -1
		for _, closer := range []string{"\n---\n", "\n...\n"} {
			if i := strings.Index("\n"+rest+"\n", closer); i >= 0 && (end < 0 || i < end) {
				end = i
			}
		}
		if end < 0 {
			return markdownDoc{}, invalidf("front matter opened with '---' is never closed")
		}
		if err := yaml.Unmarshal([]byte(rest[:max(end-1, 0)]), &fm); err != nil {
			return markdownDoc{}, invalidf("front matter is not valid YAML: %v", err)
		}
		if fm == nil {
			fm = map[string]any{}
		}
		text = rest[min(end+4, len(rest)):]
	}
	doc.title = stringField(fm, "title")
	doc.typ = stringField(fm, "type")
	doc.tags = listField(fm, "tags")
	doc.aliases = listField(fm, "aliases")
	for _, k := range []string{"title", "type", "tags", "aliases"} {
		delete(fm, k)
	}
	doc.body = text
	if h1, rest, ok := splitTitle(text); ok && (doc.title == "" || titleKey(h1) == titleKey(doc.title)) {
		doc.title, doc.body = h1, rest
	}
	if doc.title == "" {
		doc.title = strings.TrimSpace(stem)
	}
	if err := validateTitle(doc.title); err != nil {
		return markdownDoc{}, err
	}
	var err error
	if doc.tags, err = normalizeTags(doc.tags); err != nil {
		return markdownDoc{}, err
	}
	if doc.typ, err = normalizeType(doc.typ); err != nil {
		return markdownDoc{}, err
	}
	b, err := json.Marshal(fm)
	if err != nil {
		return markdownDoc{}, invalidf("front matter cannot be kept as JSON: %v", err)
	}
	doc.frontmatter = string(b)
	return doc, nil
}

func stringField(fm map[string]any, key string) string {
	if v, ok := fm[key]; ok && v != nil {
		return strings.TrimSpace(fmt.Sprint(v))
	}
	return ""
}

// listField reads a YAML list, or a string of comma- or space-separated items.
func listField(fm map[string]any, key string) []string {
	switch v := fm[key].(type) {
	case []any:
		var out []string
		for _, e := range v {
			if e != nil {
				out = append(out, strings.TrimSpace(fmt.Sprint(e)))
			}
		}
		return out
	case string:
		return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })
	}
	return nil
}
