package memory

import (
	"strings"
	"testing"
)

// TestPressureStages is table-driven over the seed's three stages.
func TestPressureStages(t *testing.T) {
	base := PressureInput{Threshold: 100_000, Window: 128_000, Reserve: 8000, WrapNudgedUpto: -1}
	with := func(f func(*PressureInput)) PressureInput { in := base; f(&in); return in }
	tests := []struct {
		name  string
		in    PressureInput
		stage PressureStage
		want  string
	}{
		{"far from the wall", with(func(i *PressureInput) { i.Measure = 50_000 }), StageNone, ""},
		{"just under 60%", with(func(i *PressureInput) { i.Measure = 59_999 }), StageNone, ""},
		{"past 60%", with(func(i *PressureInput) { i.Measure = 61_000 }), StageWindow, "about 39000 tokens"},
		{"wrap up", with(func(i *PressureInput) { i.Measure = 93_000 }), StageWrapUp, "finish the current step"},
		{"wrap up already shown in this window", with(func(i *PressureInput) { i.Measure = 93_000; i.WrapNudgedUpto = 0 }), StageWindow, "about 7000 tokens"},
		{"wrap up shown in an earlier window", with(func(i *PressureInput) {
			i.Measure = 93_000
			i.SummaryUpto = 40
			i.NotesNudgedUpto = 40
			i.WrapNudgedUpto = 12
		}), StageWrapUp, "finish"},
		{"compaction due now: no wrap up", with(func(i *PressureInput) { i.Measure = 101_000 }), StageWindow, "about 0 tokens"},
		{"just compacted", with(func(i *PressureInput) { i.Measure = 20_000; i.SummaryUpto = 40; i.NotesNudgedUpto = 0 }), StageCompacted, "just compacted"},
		{"compacted nudge shown", with(func(i *PressureInput) { i.Measure = 20_000; i.SummaryUpto = 40; i.NotesNudgedUpto = 40 }), StageNone, ""},
		{"compaction off: the window is the wall", with(func(i *PressureInput) { i.Threshold = 0; i.Measure = 90_000 }), StageWindow, "about 38000 tokens"},
		{"window smaller than the threshold", with(func(i *PressureInput) { i.Window = 80_000; i.Measure = 75_000 }), StageWrapUp, "about 5000"},
	}
	texts := PressureTexts{
		Window:    "[window] about {remaining} tokens left (threshold {threshold}, now {measure})",
		WrapUp:    "[window] finish the current step: about {remaining} tokens left",
		Compacted: "[window] the conversation was just compacted",
	}
	for _, tt := range tests {
		line, stage := Pressure(tt.in, texts)
		if stage != tt.stage || !strings.Contains(line, tt.want) {
			t.Errorf("%s: Pressure = %q, stage %d; want stage %d containing %q", tt.name, line, stage, tt.stage, tt.want)
		}
	}
	line, _ := Pressure(with(func(i *PressureInput) { i.Measure = 61_000 }), PressureTexts{Window: "left: {remaining}/{threshold}"})
	if line != "left: 39000/100000" {
		t.Errorf("custom text = %q", line)
	}
	if line, stage := Pressure(with(func(i *PressureInput) { i.Measure = 93_000 }), PressureTexts{}); line != "" || stage != StageWrapUp {
		t.Errorf("empty wrap-up text = %q, stage %d; want no line (the texts have no defaults here)", line, stage)
	}
}
