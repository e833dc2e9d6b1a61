package config

// ModelSettings say which model a delegation runs on, without secrets:
// the model name as the agent or plan asked for it, the entry under
// models: that serves it, the provider, the base URL's host and the model
// id. A queue's jobs carry them so that every worker runs the same model.
type ModelSettings struct {
	Name     string `json:"name"`
	Entry    string `json:"entry,omitempty"`
	Provider string `json:"provider,omitempty"`
	Host     string `json:"host,omitempty"`
	ID       string `json:"id"`
}

// String names the model for messages: name (id at host).
func (m ModelSettings) String() string {
	name := m.Name
	if name == "" {
		name = "default"
	}
	s := name + " (" + m.ID
	if m.Host != "" {
		s += " at " + m.Host
	}
	return s + ")"
}
