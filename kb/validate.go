package kb

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	maxTitleRunes = 200
	maxBodyBytes  = 1 << 20
	maxTags       = 32
	maxFolderDeep = 16
)

func validateTitle(t string) error {
	switch {
	case t == "":
		return invalidf("the title is empty: start the body with a '# Title' line")
	case utf8.RuneCountInString(t) > maxTitleRunes:
		return invalidf("the title is longer than %d characters; shorten it", maxTitleRunes)
	case strings.ContainsAny(t, "[]|"):
		return invalidf("the title %q contains '[', ']' or '|', which would break [[links]] to it; remove them", t)
	case strings.IndexFunc(t, unicode.IsControl) >= 0:
		return invalidf("the title %q contains control characters; remove them", t)
	}
	return nil
}

func validateBody(body string) error {
	if len(body) > maxBodyBytes {
		return invalidf("the body is %d bytes, more than the %d allowed; split it into several notes", len(body), maxBodyBytes)
	}
	if !utf8.ValidString(body) {
		return invalidf("the body is not valid UTF-8")
	}
	return nil
}

// normalizeFolder cleans a folder path: no leading or trailing '/', no empty,
// "." or ".." segments. "" is the project's root.
func normalizeFolder(p string) (string, error) {
	p = strings.Trim(strings.TrimSpace(p), "/")
	if p == "" {
		return "", nil
	}
	segs := strings.Split(p, "/")
	if len(segs) > maxFolderDeep {
		return "", invalidf("folder path %q is deeper than %d levels", p, maxFolderDeep)
	}
	for i, s := range segs {
		s = strings.TrimSpace(s)
		switch {
		case s == "" || s == "." || s == "..":
			return "", invalidf("folder path %q has an empty, '.' or '..' segment; use names separated by single '/'", p)
		case strings.ContainsAny(s, "\\") || strings.IndexFunc(s, unicode.IsControl) >= 0:
			return "", invalidf("folder path %q contains '\\' or control characters", p)
		case utf8.RuneCountInString(s) > 100:
			return "", invalidf("folder name %q is longer than 100 characters", s)
		}
		segs[i] = s
	}
	return strings.Join(segs, "/"), nil
}

// normalizeTags lower-cases, drops '#', turns spaces into '-', deduplicates
// and sorts.
func normalizeTags(tags []string) ([]string, error) {
	var out []string
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(t), "#")))
		t = strings.Join(strings.Fields(t), "-")
		if t == "" {
			continue
		}
		if utf8.RuneCountInString(t) > 64 || strings.IndexFunc(t, unicode.IsControl) >= 0 {
			return nil, invalidf("tag %q is longer than 64 characters or has control characters", t)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) > maxTags {
		return nil, invalidf("%d tags is more than %d; keep the ones that matter", len(out), maxTags)
	}
	slices.Sort(out)
	return out, nil
}

func normalizeType(t string) (string, error) {
	t = strings.TrimSpace(t)
	if utf8.RuneCountInString(t) > 64 || strings.IndexFunc(t, unicode.IsControl) >= 0 {
		return "", invalidf("type %q is longer than 64 characters or has control characters", t)
	}
	return t, nil
}

// normalizeLinkType lower-cases a link type; "" becomes "related".
func normalizeLinkType(t string) (string, error) {
	t = strings.ToLower(strings.Join(strings.Fields(t), "-"))
	if t == "" {
		return "related", nil
	}
	if utf8.RuneCountInString(t) > 64 || strings.IndexFunc(t, unicode.IsControl) >= 0 || strings.ContainsAny(t, "[]|") {
		return "", invalidf("link type %q must be a short word such as related, depends-on or part-of", t)
	}
	return t, nil
}

// inFolder reports whether folder is dir or lies below it.
func inFolder(folder, dir string) bool {
	return dir == "" || folder == dir || strings.HasPrefix(folder, dir+"/")
}
