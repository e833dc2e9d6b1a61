package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// MaxResourceBytes bounds what one read of a resource file returns.
const MaxResourceBytes = 64 << 10

// maxFiles bounds the list of a skill's files shown with its body.
const maxFiles = 100

// readIn reads rel inside dir through an os.Root: an absolute path, a ..
// that climbs out or a link that leads out is refused. A file larger than
// max bytes is an error.
func readIn(dir, rel string, max int64) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", rel, max)
	}
	return data, nil
}

// Body reads the skill's instructions again (an edit since Load is seen).
func Body(s *Skill) (string, error) {
	data, err := readIn(s.Dir, FileName, maxSkillBytes)
	if err != nil {
		return "", fmt.Errorf("read skill %s: %w", s.Name, err)
	}
	_, body, err := Parse(data, filepath.Base(s.Dir))
	if err != nil {
		return "", fmt.Errorf("read skill %s: %s: %w", s.Name, s.Source, err)
	}
	return body, nil
}

// ErrOutside is a resource path that would leave the skill's directory.
var ErrOutside = errors.New("outside the skill's directory")

// ReadFile reads a resource of the skill: rel is a slash-separated path
// relative to its directory. A path that leaves the directory — absolute,
// through .., or through a link that points out — is refused with
// ErrOutside; a larger file than MaxResourceBytes is cut, and the text
// says so.
func ReadFile(s *Skill, rel string) (string, error) {
	clean := path.Clean(strings.ReplaceAll(rel, `\`, "/"))
	if rel == "" || path.IsAbs(clean) || filepath.IsAbs(rel) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("read %s of skill %s: %w", rel, s.Name, ErrOutside)
	}
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return "", fmt.Errorf("read %s of skill %s: %w", rel, s.Name, err)
	}
	defer root.Close()
	f, err := root.Open(clean)
	if err != nil {
		if strings.Contains(err.Error(), "escapes") {
			return "", fmt.Errorf("read %s of skill %s: %w (a link out of it)", rel, s.Name, ErrOutside)
		}
		return "", fmt.Errorf("read %s of skill %s: %w", rel, s.Name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("read %s of skill %s: %w", rel, s.Name, err)
	}
	if fi.IsDir() {
		names, err := f.Readdirnames(maxFiles)
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("list %s of skill %s: %w", rel, s.Name, err)
		}
		slices.Sort(names)
		return "directory " + clean + ":\n" + strings.Join(names, "\n"), nil
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxResourceBytes+1))
	if err != nil {
		return "", fmt.Errorf("read %s of skill %s: %w", rel, s.Name, err)
	}
	text := string(data)
	if len(data) > MaxResourceBytes {
		text = text[:MaxResourceBytes] + fmt.Sprintf("\n… [cut at %d bytes of %d]", MaxResourceBytes, fi.Size())
	}
	return text, nil
}

// Files lists the skill's resource files (SKILL.md left out), relative
// and slash-separated, at most 100; links are listed, not followed.
func Files(s *Skill) []string {
	var out []string
	root := os.DirFS(s.Dir)
	_ = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && p != FileName {
			out = append(out, p)
		}
		if len(out) >= maxFiles {
			return fs.SkipAll
		}
		return nil
	})
	return out
}

// Listing is the catalogue entry of the skills for a prompt: one line of
// name and description each ("" without skills).
func (c *Catalog) Listing() string {
	all := c.All()
	if len(all) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Skills (instructions for particular tasks; when a task matches one, call skill with its name to load it, then follow it):")
	for _, s := range all {
		b.WriteString("\n- " + s.Name + ": " + s.Description)
	}
	return b.String()
}

// Loaded is what the skill tool returns for a skill: its instructions,
// its directory and the files beside them.
func Loaded(s *Skill) (string, error) {
	body, err := Body(s)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s (base directory %s)\n\n%s", s.Name, s.Dir, body)
	if files := Files(s); len(files) > 0 {
		fmt.Fprintf(&b, "\n\nFiles of this skill (read one with skill, name %s and path):\n- %s", s.Name, strings.Join(files, "\n- "))
	}
	return b.String(), nil
}
