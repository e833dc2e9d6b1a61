package kb

import (
	"fmt"
	"slices"
)

// Kind says whether a person or an agent makes a call; provenance records it.
type Kind string

const (
	KindPerson Kind = "person"
	KindAgent  Kind = "agent"
)

// Caller is who makes a call and with what rights. Authenticate builds one
// from a token (Kind agent); a person at the CLI uses PersonCaller. Every
// tool takes a Caller and checks it against what the call touches.
type Caller struct {
	PrincipalID int64
	// TokenID is the token the call came through; 0 for a person acting directly.
	TokenID int64
	Kind    Kind
	// Write allows write tools; a read caller sees and may call read tools only.
	Write bool
	// ProjectIDs limits the caller to these projects (within the principal's
	// memberships); empty means every project the principal is a member of.
	ProjectIDs []int64
	// Client and Session say where a write came from ("claude-desktop",
	// "yagent"; a session id). Free text, recorded in provenance.
	Client  string
	Session string
}

// PersonCaller is a person acting directly (the CLI) with full rights over
// the projects they are a member of.
func PersonCaller(principalID int64, client string) Caller {
	return Caller{PrincipalID: principalID, Kind: KindPerson, Write: true, Client: client}
}

func (c Caller) check() error {
	if c.PrincipalID <= 0 {
		return fmt.Errorf("caller has no principal")
	}
	if c.Kind != KindPerson && c.Kind != KindAgent {
		return fmt.Errorf("caller kind %q is neither %q nor %q", c.Kind, KindPerson, KindAgent)
	}
	return nil
}

func (c Caller) requireWrite(tool string) error {
	if err := c.check(); err != nil {
		return err
	}
	if !c.Write {
		return forbiddenf("%s writes, and this token is read-only; ask the person for a write token or use read tools only", tool)
	}
	return nil
}

func (c Caller) requirePerson(op string) error {
	if err := c.check(); err != nil {
		return err
	}
	if c.Kind != KindPerson {
		return forbiddenf("%s is for a person only; ask the person to do it", op)
	}
	return nil
}

// ceilingAllows reports whether the token's project list admits project id.
func (c Caller) ceilingAllows(id int64) bool {
	return len(c.ProjectIDs) == 0 || slices.Contains(c.ProjectIDs, id)
}

func (c Caller) access() string {
	if c.Write {
		return "write"
	}
	return "read"
}
