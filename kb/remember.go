package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// RememberAboutUserInput is the input of remember_about_user.
type RememberAboutUserInput struct {
	Category    string `json:"category" jsonschema:"kind of fact, e.g. preferences, background, working style; reuse knownValues.categories from start_session"`
	Observation string `json:"observation" jsonschema:"one durable fact about the user, as a sentence"`
}

// RememberAboutProjectInput is the input of remember_about_project.
type RememberAboutProjectInput struct {
	Project     string `json:"project" jsonschema:"project handle from get_my_projects, verbatim"`
	Category    string `json:"category" jsonschema:"kind of memory, e.g. conventions, pitfalls, decisions; reuse knownValues.categories from start_session"`
	Observation string `json:"observation" jsonschema:"one thing worth remembering about the project, as a sentence"`
}

// RememberOutput is the output of remember_about_user and remember_about_project.
type RememberOutput struct {
	NoteID       string `json:"noteId" jsonschema:"the private note holding these memories"`
	Category     string `json:"category" jsonschema:"the category as stored (an existing one keeps its spelling)"`
	Duplicate    bool   `json:"duplicate" jsonschema:"true when this observation was already recorded; nothing changed"`
	VersionToken string `json:"versionToken"`
}

const (
	profileTitle      = "User profile"
	maxObservationLen = 2000
)

// RememberAboutUser appends an observation under a category of the user's
// private profile. See tooldesc/remember_about_user.md.
func (s *Store) RememberAboutUser(ctx context.Context, c Caller, in RememberAboutUserInput) (RememberOutput, error) {
	var out RememberOutput
	err := s.write(ctx, c, "remember_about_user", func(w *wtx) error {
		proto, err := s.profileHome(ctx, w, c)
		if err != nil {
			return err
		}
		out, err = w.remember(proto, in.Category, in.Observation)
		return err
	})
	if err != nil {
		return RememberOutput{}, fmt.Errorf("remember_about_user: %w", err)
	}
	return out, nil
}

// profileHome is the profile note remember_about_user records into for c.
// A person, or a token that reaches every project of its principal, writes
// the general profile, which every token of the principal reads. A token
// limited to one project writes that project's own profile (a user-profile
// note about the project), which only tokens reaching that project read —
// unless user memory is shared (kb.user_memory: shared), when it too
// writes the general profile. A token limited to several projects has no
// single home in isolated mode and is refused rather than leak a fact from
// one of its projects into another's.
func (s *Store) profileHome(ctx context.Context, q querier, c Caller) (noteRow, error) {
	domain, err := personalDomain(ctx, q, c.PrincipalID)
	if err != nil {
		return noteRow{}, err
	}
	general := noteRow{DomainID: domain, OwnerID: c.PrincipalID, Class: ClassUserProfile, Title: profileTitle}
	if s.sharedMem || len(c.ProjectIDs) == 0 {
		return general, nil
	}
	if len(c.ProjectIDs) > 1 {
		return noteRow{}, forbiddenf("this token reaches %d projects and user memory is kept per project (kb.user_memory: isolated), so the fact would have no single home; record it with remember_about_project in the project it concerns, or ask the person for a token limited to one project", len(c.ProjectIDs))
	}
	p, err := projectByID(ctx, q, c.ProjectIDs[0])
	if errors.Is(err, sql.ErrNoRows) {
		return noteRow{}, forbiddenf("the project this token was limited to no longer exists; ask the person for a new token")
	}
	if err != nil {
		return noteRow{}, err
	}
	if ok, err := canAccess(ctx, q, c, p); err != nil {
		return noteRow{}, err
	} else if !ok {
		return noteRow{}, forbiddenf("this token is limited to project %s, which its person is no longer a member of; ask the person for a new token", p.Handle)
	}
	general.AboutProject, general.Title = p.ID, profileTitle+": "+p.Handle
	return general, nil
}

// RememberAboutProject appends to the agent's private memory about a
// project (class agent-memory). See tooldesc/remember_about_project.md.
func (s *Store) RememberAboutProject(ctx context.Context, c Caller, in RememberAboutProjectInput) (RememberOutput, error) {
	var out RememberOutput
	err := s.write(ctx, c, "remember_about_project", func(w *wtx) error {
		p, err := resolveProject(ctx, w, c, in.Project)
		if err != nil {
			return err
		}
		domain, err := personalDomain(ctx, w, c.PrincipalID)
		if err != nil {
			return err
		}
		out, err = w.remember(noteRow{DomainID: domain, OwnerID: c.PrincipalID, Class: ClassAgentMemory,
			AboutProject: p.ID, Title: "Project memory: " + p.Handle}, in.Category, in.Observation)
		return err
	})
	if err != nil {
		return RememberOutput{}, fmt.Errorf("remember_about_project: %w", err)
	}
	return out, nil
}

// remember adds the observation to the note like proto (found by class and
// project, created when missing).
func (w *wtx) remember(proto noteRow, category, observation string) (RememberOutput, error) {
	category = strings.Join(strings.Fields(category), " ")
	observation = strings.Join(strings.Fields(observation), " ")
	switch {
	case category == "":
		return RememberOutput{}, invalidf("category is empty; name the kind of fact, e.g. preferences")
	case utf8.RuneCountInString(category) > 64 || strings.ContainsAny(category, "#[]|"):
		return RememberOutput{}, invalidf("category %q must be a few words (at most 64 characters, no '#', '[', ']', '|')", category)
	case observation == "":
		return RememberOutput{}, invalidf("observation is empty; write the fact as a sentence")
	case utf8.RuneCountInString(observation) > maxObservationLen:
		return RememberOutput{}, invalidf("observation is longer than %d characters; record one fact at a time", maxObservationLen)
	}
	n, found, err := findMemoryNote(w.ctx, w, proto)
	if err != nil {
		return RememberOutput{}, err
	}
	if !found {
		if owner, err := liveTitleOwner(w.ctx, w, proto.DomainID, proto.Folder, proto.Title); err != nil {
			return RememberOutput{}, err
		} else if owner != 0 {
			proto.Title = fmt.Sprintf("%s (%d)", proto.Title, proto.AboutProject)
		}
		n = proto
		n.Body, category, _ = addObservation("", category, observation)
		if err := w.insertNote(&n, "remember"); err != nil {
			return RememberOutput{}, err
		}
		return RememberOutput{NoteID: noteRef(n.ID), Category: category, VersionToken: n.versionToken()}, nil
	}
	body, stored, dup := addObservation(n.Body, category, observation)
	out := RememberOutput{NoteID: noteRef(n.ID), Category: stored, Duplicate: dup, VersionToken: n.versionToken()}
	if dup {
		return out, nil
	}
	after := n
	after.Body = body
	if err := w.saveNote(n, &after, "remember"); err != nil {
		return RememberOutput{}, err
	}
	out.VersionToken = after.versionToken()
	return out, nil
}

func findMemoryNote(ctx context.Context, q querier, proto noteRow) (noteRow, bool, error) {
	n, err := scanNote(q.QueryRowContext(ctx, noteSelect+` WHERE n.domain_id = ? AND n.class = ?
		AND coalesce(n.about_project, 0) = ? AND n.deleted_at IS NULL ORDER BY n.id LIMIT 1`,
		proto.DomainID, proto.Class, proto.AboutProject))
	if errors.Is(err, sql.ErrNoRows) {
		return noteRow{}, false, nil
	}
	if err != nil {
		return noteRow{}, false, fmt.Errorf("find memory note: %w", err)
	}
	return n, true, nil
}

// addObservation adds "- observation" under "## category" (made if
// missing). It reports the category's stored spelling and whether the
// observation was already there.
func addObservation(body, category, observation string) (string, string, bool) {
	bullet := "- " + observation
	for _, sec := range sections(body) {
		if sec.level != 2 || titleKey(sec.text) != titleKey(category) {
			continue
		}
		content := body[min(sec.headEnd+1, len(body)):sec.end]
		for _, l := range strings.Split(content, "\n") {
			if titleKey(strings.TrimPrefix(strings.TrimSpace(l), "- ")) == titleKey(observation) {
				return body, sec.text, true
			}
		}
		content = strings.Trim(content, "\n")
		if content != "" {
			content += "\n"
		}
		return replaceSectionContent(body, sec, content+bullet), sec.text, false
	}
	rest := strings.Trim(body, "\n")
	if rest != "" {
		rest += "\n\n"
	}
	return rest + "## " + category + "\n\n" + bullet + "\n", category, false
}

// memoryCategories lists the level-2 headings of c's profile and of the
// memory notes in sc.
func memoryCategories(ctx context.Context, q querier, sc scope, personal int64) ([]string, error) {
	where, args := sc.filter()
	rows, err := q.QueryContext(ctx, "SELECT n.body FROM notes n WHERE "+where+
		" AND n.domain_id = ? AND n.class IN ('user-profile', 'agent-memory') ORDER BY n.id", append(args, personal)...)
	if err != nil {
		return nil, fmt.Errorf("memory categories: %w", err)
	}
	defer rows.Close()
	var out []string
	seen := map[string]bool{}
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("memory categories: %w", err)
		}
		for _, h := range headings(body) {
			if h.Level == 2 && !seen[titleKey(h.Text)] {
				seen[titleKey(h.Text)] = true
				out = append(out, h.Text)
			}
		}
	}
	return out, rows.Err()
}
