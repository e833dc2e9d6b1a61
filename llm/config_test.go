package llm_test

import (
	"slices"
	"testing"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
)

// TestProvidersMatchProfiles keeps the values config accepts for
// models.<name>.provider and .api in step with llm's table.
func TestProvidersMatchProfiles(t *testing.T) {
	if !slices.Equal(config.Providers, llm.ProviderNames()) {
		t.Errorf("config.Providers = %v; llm's profiles are %v", config.Providers, llm.ProviderNames())
	}
	if !slices.Equal(config.APIs, []string{llm.APIChat, llm.APIResponses}) {
		t.Errorf("config.APIs = %v", config.APIs)
	}
}
