package config

import (
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestShowMasksSecrets pins issue 25 item 8 for `config show`: the YAML
// and the JSON of a configuration never hold a DSN's or URL's password, a
// header value or a secret-looking MCP server variable, and still say each
// is set ("xxxxx"); "${VAR}" references and ordinary values stay readable.
func TestShowMasksSecrets(t *testing.T) {
	cfg, err := load(t, `models:
  default:
    base_url: https://proxy-user:proxy-pw-1@llm.example/v1
    extra_headers: {Authorization: "Bearer hdr-secret-2", X-Ref: "${GOOD_TOKEN}", X-Empty: ""}
kb:
  dsn: postgres://kb:kb-pw-3@db.example:5432/kb
queue:
  dsn: postgres://q:queue-pw-4@db.example/jobs
telemetry:
  endpoint: https://otel:otel-pw-5@collector.example:4318
  headers: {api-key: tel-secret-6, X-Tenant: "${TENANT_TOKEN}"}
mcp_servers:
  gh:
    command: gh-mcp
    env:
      GITHUB_TOKEN: env-secret-7
      OPENAI_API_KEY: env-secret-8
      DB_URL: postgres://u:env-pw-9@h/db
      OPAQUE: AbCdEf0123456789AbCdEf0123456789xyz
      LOG_LEVEL: debug
      FROM_ENV: "${GH_TOKEN}"
`, "")
	if err != nil {
		t.Fatal(err)
	}
	y, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"yaml": string(y), "json": string(j)} {
		for _, secret := range []string{"proxy-pw-1", "hdr-secret-2", "kb-pw-3", "queue-pw-4", "otel-pw-5", "tel-secret-6",
			"env-secret-7", "env-secret-8", "env-pw-9", "AbCdEf0123456789"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s: config show prints the secret %q", name, secret)
			}
		}
		for _, want := range []string{"${GOOD_TOKEN}", "${TENANT_TOKEN}", "${GH_TOKEN}", "debug", "proxy-user:xxxxx@llm.example",
			"kb:xxxxx@db.example", "otel:xxxxx@collector.example", "gh-mcp"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: config show lacks %q:\n%s", name, want, out)
			}
		}
		if n := strings.Count(out, "xxxxx"); n < 10 {
			t.Errorf("%s: %d masked values; want every secret to say it is set (xxxxx)", name, n)
		}
	}
	if m := cfg.Models["default"]; m.ExtraHeaders["Authorization"] != "Bearer hdr-secret-2" || !strings.Contains(m.BaseURL, "proxy-pw-1") {
		t.Error("masking changed the configuration itself; only its printed form is masked")
	}
}
