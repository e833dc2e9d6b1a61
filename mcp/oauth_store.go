package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/oauth2"

	"github.com/yagent/yagent/internal/atomicfile"
)

// TokenStore keeps the OAuth tokens of remote MCP servers, one file per
// server and URL under Dir ($YAGENT_HOME/mcp-oauth: hidden from the
// sandbox's view), mode 0600, each written atomically. A file is named by
// the server's name and a hash of its URL, and holds the URL: a token is
// sent only to the URL it was issued for, so another server given the same
// name (a workspace's .mcp.json) never receives it. Files of the wrong shape
// or version read as no token. Safe for concurrent use within a process.
type TokenStore struct {
	Dir string
	mu  sync.Mutex
}

// tokenFileVersion is the on-disk format's version.
const tokenFileVersion = 1

// tokenRecord is one server's token file: the token and what refreshing
// it needs (the client registered with the authorization server and its
// token endpoint).
type tokenRecord struct {
	Version      int              `json:"version"`
	Server       string           `json:"server"`
	URL          string           `json:"url"`
	ClientID     string           `json:"client_id"`
	ClientSecret string           `json:"client_secret,omitempty"`
	TokenURL     string           `json:"token_url"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style,omitempty"`
	Token        *oauth2.Token    `json:"token"`
}

// Path is the token file of server name at url.
func (s *TokenStore) Path(name, url string) string {
	sum := sha256.Sum256([]byte(url))
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)
	return filepath.Join(s.Dir, safe+"-"+hex.EncodeToString(sum[:6])+".json")
}

// load reads the record of name at url; none (or a damaged one) is nil.
func (s *TokenStore) load(name, url string) *tokenRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := os.ReadFile(s.Path(name, url))
	if err != nil {
		return nil
	}
	var rec tokenRecord
	if json.Unmarshal(b, &rec) != nil || rec.Version != tokenFileVersion || rec.URL != url || rec.Token == nil || rec.ClientID == "" || rec.TokenURL == "" {
		return nil
	}
	return &rec
}

func (s *TokenStore) save(rec *tokenRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Version = tokenFileVersion
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("keep the token of mcp server %s: %w", rec.Server, err)
	}
	if err := atomicfile.WriteFile(s.Path(rec.Server, rec.URL), b, 0o600); err != nil {
		return fmt.Errorf("keep the token of mcp server %s: %w", rec.Server, err)
	}
	return nil
}

// Remove deletes the token of name at url; removed says there was one.
func (s *TokenStore) Remove(name, url string) (removed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err = os.Remove(s.Path(name, url))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("forget the token of mcp server %s: %w", name, err)
	}
	return true, atomicfile.SyncDir(s.Dir)
}

// savingSource hands out the tokens of src and writes each new one (a
// refreshed token) to the store.
type savingSource struct {
	src   oauth2.TokenSource
	store *TokenStore
	rec   tokenRecord // the token's client; Token is the last one kept
	warn  func(error)
	// issued, when set, learns every token handed out (to scrub it).
	issued func(...string)
	last   string // the access token issued was last told of

	mu sync.Mutex
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	tok, err := s.src.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.issued != nil && tok.AccessToken != s.last {
		s.issued(tok.AccessToken, tok.RefreshToken)
		s.last = tok.AccessToken
	}
	if s.rec.Token == nil || s.rec.Token.AccessToken != tok.AccessToken || s.rec.Token.RefreshToken != tok.RefreshToken {
		rec := s.rec
		rec.Token = tok
		if err := s.store.save(&rec); err != nil && s.warn != nil {
			s.warn(err)
		}
		s.rec = rec
	}
	return tok, nil
}
