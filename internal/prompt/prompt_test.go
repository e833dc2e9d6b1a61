package prompt

import (
	"testing"
	"testing/fstest"
)

func TestRender(t *testing.T) {
	fsys := fstest.MapFS{"prompts/x.md": {Data: []byte("Hello {{name}}, {{name}} — {{other}}\n")}}
	if got := Render(fsys, "x", map[string]string{"name": "yagent"}); got != "Hello yagent, yagent — {{other}}" {
		t.Errorf("Render = %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a missing prompt did not panic")
		}
	}()
	Render(fsys, "missing", nil)
}
