package blackboard

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/yagent/yagent/internal/brief"
)

// The mailbox (issue 30 item 4): send_message writes a message note once,
// {board}/.mail/{stem}.md, to an agent name, "director" or "all". What a
// reader has been shown is the reader's (its session's rollout), never
// the board's: the board only holds the messages.

const (
	mailDir = ".mail"
	// MailRefPrefix starts a message's ref: mail/{stem}.
	MailRefPrefix = "mail/"
	// ToAll addresses every agent and the director.
	ToAll = "all"
	// Director is the lead's name as an addressee and an author.
	Director = "director"
)

// Message is one mailbox note.
type Message struct {
	Ref     string // mail/{stem}, set when written or read
	From    string
	To      string
	Text    string
	Created time.Time
}

type messageFrontMatter struct {
	Kind    string    `yaml:"kind"`
	Version int       `yaml:"v"`
	From    string    `yaml:"from"`
	To      string    `yaml:"to"`
	Created time.Time `yaml:"created"`
}

// EncodeMessage is m as stored: front matter and the text as body.
func EncodeMessage(m Message) ([]byte, error) {
	if strings.TrimSpace(m.Text) == "" {
		return nil, fmt.Errorf("%w: the message is empty", ErrBadTask)
	}
	for _, f := range [][2]string{{"from", m.From}, {"to", m.To}} {
		if strings.TrimSpace(f[1]) == "" {
			return nil, fmt.Errorf("%w: %s is empty", ErrBadTask, f[0])
		}
		if err := checkText(f[0], f[1], true); err != nil {
			return nil, err
		}
	}
	if err := checkText("text", m.Text, false); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "---\nkind: message\nv: 1\nfrom: %s\nto: %s\n", quoteYAML(m.From), quoteYAML(m.To))
	if !m.Created.IsZero() {
		fmt.Fprintf(&b, "created: %s\n", m.Created.UTC().Format(time.RFC3339))
	}
	b.WriteString("---\n")
	b.WriteString(m.Text)
	return b.Bytes(), nil
}

// ParseMessage reads a message note; what is not one is an error saying
// why.
func ParseMessage(data []byte) (Message, error) {
	var fm messageFrontMatter
	body, err := parseRecord(data, "message", &fm)
	if err != nil {
		return Message{}, err
	}
	if fm.From == "" || fm.To == "" {
		return Message{}, fmt.Errorf("%w: a message needs from and to", ErrBadTask)
	}
	return Message{From: fm.From, To: fm.To, Text: string(body), Created: fm.Created}, nil
}

// SendMessage writes m once under a new name and returns it with its ref.
// Whether To names a known agent is the caller's to check.
func (s *Store) SendMessage(board string, m Message) (Message, error) {
	if !s.Enabled() {
		return Message{}, ErrDisabled
	}
	bdir, err := s.boardDir(board)
	if err != nil {
		return Message{}, err
	}
	m.Created = s.now().UTC().Truncate(time.Second)
	data, err := EncodeMessage(m)
	if err != nil {
		return Message{}, err
	}
	dir := filepath.Join(bdir, mailDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Message{}, fmt.Errorf("send message: %w", err)
	}
	stem, err := s.writeNewNamed(dir, ".md", data)
	if err != nil {
		return Message{}, fmt.Errorf("send message: %w", err)
	}
	m.Ref = MailRefPrefix + stem
	return m, nil
}

// Mailbox returns the messages of a board addressed to reader (an agent
// name, normalised, or "director") or to all but sent by someone else, in
// the order they were sent.
func (s *Store) Mailbox(board, reader string) ([]Message, error) {
	if !s.Enabled() {
		return nil, ErrDisabled
	}
	bdir, err := s.boardDir(board)
	if err != nil {
		return nil, err
	}
	me := NormalizeAgent(reader)
	var out []Message
	_, err = readRecords(filepath.Join(bdir, mailDir), ".md", func(stem string, data []byte) error {
		m, err := ParseMessage(data)
		if err != nil {
			return err
		}
		to, from := NormalizeAgent(m.To), NormalizeAgent(m.From)
		if to == me || to == ToAll && from != me {
			m.Ref = MailRefPrefix + stem
			out = append(out, m)
		}
		return nil
	})
	return out, err
}

// FormatMailbox is the index's mailbox section: the unread messages, each
// on one line cut to lineChars (0: no cut), oldest first; "" when there
// are none.
func FormatMailbox(unread []Message, lineChars int) string {
	if len(unread) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[mailbox · %d unread]", len(unread))
	for _, m := range unread {
		line := fmt.Sprintf("%s from %s to %s: %s", m.Ref, m.From, m.To, strings.Join(strings.Fields(m.Text), " "))
		if lineChars > 0 {
			line = brief.Line(line, lineChars)
		}
		b.WriteString("\n- " + line)
	}
	return b.String()
}
