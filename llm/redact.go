package llm

import (
	"errors"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/yagent/yagent/internal/redact"
)

// credentials are the values every request of cfg carries that an error
// must never show: the API key, the extra headers named like credentials,
// cfg.Secrets (extra headers read from the environment), and a password or
// a query value named like a credential in the base URL u.
func credentials(cfg EndpointConfig, u *url.URL) redact.Secrets {
	vals := append([]string{cfg.APIKey}, cfg.Secrets...)
	if pw, ok := u.User.Password(); ok {
		vals = append(vals, pw)
	}
	for k, vs := range u.Query() {
		if credentialName(k) {
			vals = append(vals, vs...)
		}
	}
	for _, k := range sortedKeys(cfg.ExtraHeaders) {
		if credentialName(k) {
			vals = append(vals, cfg.ExtraHeaders[k])
		}
	}
	return redact.New(vals...)
}

// credentialName reports a header (or query parameter) name that carries
// a credential.
func credentialName(name string) bool {
	low := strings.ToLower(name)
	if low == "authorization" || low == "proxy-authorization" || low == "cookie" {
		return true
	}
	for _, w := range []string{"key", "token", "secret", "auth", "password"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// scrubParts takes the credentials out of what one failed attempt brought
// back, before any of it is parsed, flattened or cut to a line: the error
// body (so an *APIError never holds one, and a key cut by the length cap
// is still found), a stream's error event and a Responses failure.
func (c *OpenAIClient) scrubParts(err error, out *httpOutcome) error {
	if c.secrets.Empty() {
		return err
	}
	out.body = c.secrets.Bytes(out.body)
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		se.Event.Data = c.secrets.Bytes(se.Event.Data)
	}
	var re *responsesError
	if errors.As(err, &re) {
		re.code, re.msg = c.secrets.String(re.code), c.secrets.String(re.msg)
	}
	return err
}

// scrub takes the credentials out of the text of the error classify
// reports (a connection error names the URL, which may hold a key),
// keeping the retryable mark on the outside where retry looks for it.
func (c *OpenAIClient) scrub(err error) error {
	if r, ok := err.(*retryableError); ok {
		return retryable(c.secrets.Error(r.err))
	}
	return c.secrets.Error(err)
}
