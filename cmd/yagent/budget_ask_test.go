package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm/llmtest"
)

// budgetRaiseConfig prices the scripted model at $0.01 a call and caps
// a run at one call's worth.
const budgetRaiseConfig = budgetPrice + "budget:\n  max_cost: 0.01\n"

// TestTUIBudgetAsks: a TUI session whose budget is spent asks, in the
// approval modal, to raise it; on yes the turn goes on with the raised
// cap and answers.
func TestTUIBudgetAsks(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "budget-raise.yaml", canAsk: true, width: 100, height: 24, config: budgetRaiseConfig})
	r.idle()
	r.tm.Type("spend")
	r.key("enter")
	frame := r.waitFrame("the budget question", func(s string) bool { return strings.Contains(s, "allow? [y]es") })
	requireGolden(t, strings.ReplaceAll(frame, r.dir, "$WORK"))
	r.tm.Type("y")
	r.idle()
	if out := readAll(r, "Done spending."); !strings.Contains(out, "Done spending.") {
		t.Errorf("the turn did not go on after the raise:\n%s", out)
	}
}

// TestChatBudgetAsks: the plain chat (a terminal, TERM=dumb) asks the
// same question at the spent budget; y raises it and the turn answers.
func TestChatBudgetAsks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := yagentBinary(t)
	srv := llmtest.NewTestServer(t, filepath.Join("..", "..", "testdata", "scenarios", "budget-raise.yaml"))
	master, slavePath := openPTY(t)
	defer master.Close()
	slave, err := os.OpenFile(slavePath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	mkfile(t, filepath.Join(home, ".yagent", "config.yaml"), budgetRaiseConfig)
	cmd := testio.Command(t, testio.ChildTimeout, bin, "chat")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "YAGENT_HOME="+filepath.Join(home, ".yagent"), "YAGENT_NOTES_ROOT=",
		"OPENAI_BASE_URL="+srv.URL(), "YAGENT_MODEL=scripted", "TERM=dumb")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	scr := &screen{}
	go func() { _, _ = bufCopy(scr, master) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	}()
	type_ := func(s string) {
		if _, err := master.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	at := scr.expect(t, 0, "new session")
	type_("spend\r")
	at = scr.expect(t, at, "? the budget of budget.max_cost is spent (max_cost $0.0100; spent $0.0100 and 1000 tokens): raise it to max_cost $0.0200 and go on")
	at = scr.expect(t, at, "allow? [y]es / [n]o")
	type_("y")
	at = scr.expect(t, at, "Done spending.")
	at = scr.expect(t, at, "── ")
	type_("/quit\r")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("yagent exited with %v; screen:\n%s", err, scr.String())
		}
	case <-time.After(screenWait):
		t.Fatalf("yagent did not exit after /quit; screen:\n%s", scr.String())
	}
	_ = at
}
