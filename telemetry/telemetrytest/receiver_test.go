package telemetrytest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/telemetry"
)

// TestReceiverDecodesExport pins the receiver against the real exporter:
// names, parents, typed attributes and status come through, and Tree
// orders siblings by their subtree, not by arrival.
func TestReceiverDecodesExport(t *testing.T) {
	r := NewReceiver(t)
	tel := Start(t, r.URL(), false, nil)
	ctx, root := telemetry.StartAgent(context.Background(), "director", "m", 0, "s1")
	for _, name := range []string{"b", "a", "b"} {
		c, sp := telemetry.StartTool(ctx, name, "id-"+name)
		if name == "a" {
			_, ch := telemetry.StartChat(c, "m", "openai")
			ch.Chat("m2", "stop", 7, 3, 2, 1)
			ch.End(nil)
		}
		sp.Fail("tool_error", "failed")
		sp.End(nil)
	}
	root.End(nil)
	tel.Shutdown(t.Context())
	spans := r.Spans()
	want := "invoke_agent director\n  execute_tool a\n    chat m\n  execute_tool b\n  execute_tool b\n"
	if got := Tree(spans); got != want {
		t.Fatalf("Tree:\n%s\nwant:\n%s", got, want)
	}
	ch := Find(spans, "chat m")[0]
	if ch.Attrs[telemetry.KeyInputTokens] != int64(7) || ch.Attrs[telemetry.KeyResponseModel] != "m2" {
		t.Errorf("chat attributes: %v", ch.Attrs)
	}
	if fr, _ := ch.Attrs[telemetry.KeyFinishReasons].([]any); len(fr) != 1 || fr[0] != "stop" {
		t.Errorf("finish reasons = %#v; want [stop]", ch.Attrs[telemetry.KeyFinishReasons])
	}
	if b := Find(spans, "execute_tool b")[0]; !b.Error || b.Status != "failed" || b.Attrs[telemetry.KeyErrorType] != "tool_error" {
		t.Errorf("a failed tool span: error %v status %q attrs %v", b.Error, b.Status, b.Attrs)
	}
}

// TestBlackholeNeverAnswers pins the hung collector: a request to it gets
// no answer.
func TestBlackholeNeverAnswers(t *testing.T) {
	url := Blackhole(t)
	c := &http.Client{Timeout: 200 * time.Millisecond}
	resp, err := c.Post(url+"/v1/traces", "application/x-protobuf", strings.NewReader(""))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("the blackhole answered %s", resp.Status)
	}
}
