package redact

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"testing"
)

const key = "sk-proj-Abc123_def456-GHI789"

// jsonEscapeAll writes s as a JSON string with every byte \u-escaped, as
// some encoders do for what they consider unsafe.
func jsonEscapeAll(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, `\u%04x`, c)
	}
	return b.String()
}

func percentAll(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func entities(s string) string {
	var b strings.Builder
	for i, c := range []byte(s) {
		if i%2 == 0 {
			fmt.Fprintf(&b, "&#%d;", c)
		} else {
			fmt.Fprintf(&b, "&#x%x;", c)
		}
	}
	return b.String()
}

func marshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestScrubForms pins every form a server's answer may give a credential
// back in: each is replaced, and the text around it is kept.
func TestScrubForms(t *testing.T) {
	s := New(key, "Bearer "+key, "Basic dXNlcjpwYXNzd29yZA==")
	for _, tc := range []struct {
		name, in string
		want     string // "" = only check that no form of the key is left
	}{
		{"raw", "bad key " + key + " here", "bad key [redacted] here"},
		{"bearer header echoed", `{"error":{"message":"Authorization: Bearer ` + key + ` is not valid"}}`,
			`{"error":{"message":"Authorization: [redacted] is not valid"}}`},
		{"quoted", `api-key '` + key + `' rejected ("` + key + `")`, `api-key '[redacted]' rejected ("[redacted]")`},
		{"upper case", "KEY " + strings.ToUpper(key), "KEY [redacted]"},
		{"url query", "GET /v1/models?key=" + url.QueryEscape(key) + "&x=1", "GET /v1/models?key=[redacted]&x=1"},
		{"percent-encoded every byte", "u=" + percentAll(key) + ";", "u=[redacted];"},
		{"lower-case hex", "u=" + strings.ToLower(percentAll(key)), "u=[redacted]"},
		{"json-escaped", `{"m":"` + jsonEscapeAll(key) + `"}`, `{"m":"[redacted]"}`},
		{"json in json", marshal(map[string]string{"body": marshal(map[string]string{"h": "Bearer " + jsonEscapeAll(key)})}), ""},
		{"go quoted", fmt.Sprintf("%q", "\x00"+key), `"\x00[redacted]"`},
		{"html entities", "<p>" + entities(key) + "</p>", "<p>[redacted]</p>"},
		{"split by a line break", "h: " + key[:10] + "\n   " + key[10:] + " end", "h: [redacted] end"},
		{"split by an escaped line break", `h: ` + key[:7] + `\r\n ` + key[7:], "h: [redacted]"},
		{"cut at the end", "headers: Bearer " + key[:12], "headers: [redacted]"},
		{"cut early is kept", "prefix sk-", "prefix sk-"},
		{"basic credentials and the whole header", "Authorization: Basic dXNlcjpwYXNzd29yZA== denied", "Authorization: [redacted] denied"},
		{"several", key + "," + key, "[redacted],[redacted]"},
		{"nothing to do", "model not found", "model not found"},
		{"another key is kept", "sk-proj-Zzz999_other", "sk-proj-Zzz999_other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := s.String(tc.in)
			if tc.want != "" && got != tc.want {
				t.Errorf("String(%q) =\n %q; want\n %q", tc.in, got, tc.want)
			}
			if leaks(got, key) {
				t.Errorf("String(%q) = %q: the key is still there", tc.in, got)
			}
		})
	}
}

// leaks reports whether text holds key or a long piece of it, in any
// case, once decoded from the forms the tests use.
func leaks(text, key string) bool {
	low := strings.ToLower(text)
	for _, form := range []string{low, strings.ToLower(unescape(text))} {
		if strings.Contains(form, strings.ToLower(key[:10])) || strings.Contains(form, strings.ToLower(key[len(key)-10:])) {
			return true
		}
	}
	return false
}

// unescape undoes the forms the tests build, loosely.
func unescape(s string) string {
	for range 3 {
		if u, err := url.QueryUnescape(s); err == nil {
			s = u
		}
		var v string
		if json.Unmarshal([]byte(`"`+s+`"`), &v) == nil {
			s = v
		}
		s = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\/`, `/`).Replace(s)
	}
	return strings.Join(strings.Fields(s), "")
}

// TestShortValuesAreNotSecrets pins MinLen: placeholders local servers
// take as keys are left alone.
func TestShortValuesAreNotSecrets(t *testing.T) {
	s := New("ollama", "EMPTY", "", "  ")
	if !s.Empty() {
		t.Fatalf("New(placeholders) = %v; want nothing to scrub", s.vals)
	}
	if got := s.String("pull ollama first"); got != "pull ollama first" {
		t.Errorf("String = %q", got)
	}
	// A password a person chose is scrubbed whatever its length.
	if got := Exact("pw1", "").String("auth failed for pw1"); got != "auth failed for [redacted]" {
		t.Errorf("Exact(pw1).String = %q", got)
	}
}

// TestScrubError pins that a scrubbed error keeps its chain for errors.Is
// and returns the very same error when there is nothing to scrub.
func TestScrubError(t *testing.T) {
	s := New(key)
	plain := fmt.Errorf("read: %w", fs.ErrNotExist)
	if got := s.Error(plain); got != plain {
		t.Errorf("Error(clean) = %v; want the same error", got)
	}
	err := fmt.Errorf("401 from server (Bearer %s): %w", key, fs.ErrPermission)
	got := s.Error(err)
	if strings.Contains(got.Error(), key) || !strings.Contains(got.Error(), "Bearer [redacted]") {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(got, fs.ErrPermission) {
		t.Error("the scrubbed error lost its chain")
	}
	if (Secrets{}).Error(err) != err || s.Error(nil) != nil {
		t.Error("nothing to scrub must return err itself")
	}
}

// FuzzScrub: whatever surrounds it, a key planted in text in any form
// never survives, and no text makes the scrubber panic.
func FuzzScrub(f *testing.F) {
	f.Add("before ", " after", "sk-test-0123456789abcdef", uint8(0), uint8(5))
	f.Add(`{"error":"`, `"}`, "AIzaSyD-abcdefghijklmnop", uint8(3), uint8(9))
	f.Add("h=", "", "ghp_abcdefghijklmnopqrstuvwxyz0123", uint8(7), uint8(30))
	f.Fuzz(func(t *testing.T, before, after, secret string, mode, split uint8) {
		s := New(secret)
		_ = s.String(before + secret + after) // any bytes at all: no panic
		secret = keyLike(secret)
		if len(secret) < MinLen {
			return
		}
		s = New(secret)
		planted := plant(secret, mode, int(split)%len(secret))
		got := s.String(before + planted + after)
		if strings.Contains(strings.ToLower(got), strings.ToLower(secret)) {
			t.Fatalf("String(%q + %q + %q) = %q: the key survived", before, planted, after, got)
		}
		if !strings.Contains(got, Marker) {
			t.Fatalf("String(%q + %q + %q) = %q: no marker", before, planted, after, got)
		}
	})
}

// keyLike keeps the bytes keys are made of (letters, digits, - _ . = / +).
func keyLike(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (isAlnum(byte(r)) || strings.ContainsRune("-_.=/+", r)) {
			return r
		}
		return -1
	}, s)
}

// plant writes secret in one of the forms a server may echo it in, split
// at split where the form allows it.
func plant(secret string, mode uint8, split int) string {
	switch mode % 10 {
	case 0:
		return secret
	case 1:
		return strings.ToUpper(secret)
	case 2:
		return url.QueryEscape(secret)
	case 3:
		return percentAll(secret)
	case 4:
		return jsonEscapeAll(secret)
	case 5:
		return strings.Trim(marshal(strings.Trim(marshal(secret), `"`)), `"`)
	case 6:
		return secret[:split] + "\r\n\t" + secret[split:]
	case 7:
		return secret[:split] + `\n ` + secret[split:]
	case 8:
		return entities(secret)
	default:
		return strings.Trim(fmt.Sprintf("%q", secret), `"`)
	}
}
