package memory

import (
	"strconv"
	"strings"
)

// Pressure stages (seed 000, "Давление истории"). The thresholds are
// constants; the texts come from configuration (context.pressure, whose
// defaults are in config/defaults.yaml).
const (
	// PressureAtPercent: the [window] line appears once the measure passes
	// this share of the way to the nearest wall, i.e. when less than
	// 100-PressureAtPercent percent of the threshold remains.
	PressureAtPercent = 60
)

// PressureTexts are the three stages' texts; {remaining}, {threshold},
// {measure} and {wall} are replaced. An empty text says nothing at its
// stage.
type PressureTexts struct {
	Window    string
	WrapUp    string
	Compacted string
}

// PressureInput is what the stages are computed from.
type PressureInput struct {
	Measure int // tokens of the next request (Session.Measure)
	// Threshold is where compaction fires (0: compaction off).
	Threshold int
	// Window is the model's context window (the hard wall).
	Window int
	// Reserve is wrap_up_reserve_tokens.
	Reserve int
	// SummaryUpto identifies the current window (grows at each
	// compaction); WrapNudgedUpto and NotesNudgedUpto are the windows
	// whose one-time nudges were already shown.
	SummaryUpto, WrapNudgedUpto, NotesNudgedUpto int
}

// PressureStage says which nudge, if any, the line carries.
type PressureStage int

const (
	StageNone PressureStage = iota
	StageWindow
	StageWrapUp
	StageCompacted
)

// Pressure returns the [window] line for the next request ("" when there
// is nothing to say) and the stage, so the caller can record a one-time
// nudge as shown.
func Pressure(in PressureInput, texts PressureTexts) (string, PressureStage) {
	wall := in.Window
	if in.Threshold > 0 && (wall <= 0 || in.Threshold < wall) {
		wall = in.Threshold
	}
	fill := func(t string) string {
		return strings.NewReplacer("{remaining}", strconv.Itoa(max(wall-in.Measure, 0)), "{threshold}", strconv.Itoa(wall),
			"{measure}", strconv.Itoa(in.Measure), "{wall}", strconv.Itoa(wall)).Replace(t)
	}
	// Right after a compaction: a one-time nudge instead of numbers.
	if in.SummaryUpto > in.NotesNudgedUpto {
		return fill(texts.Compacted), StageCompacted
	}
	if wall <= 0 {
		return "", StageNone
	}
	remaining := wall - in.Measure
	if remaining*100 >= wall*(100-PressureAtPercent) {
		return "", StageNone // far from the wall: the line would be noise
	}
	compactionDue := in.Threshold > 0 && in.Measure >= in.Threshold
	if remaining <= in.Reserve && !compactionDue && in.WrapNudgedUpto != in.SummaryUpto {
		return fill(texts.WrapUp), StageWrapUp
	}
	return fill(texts.Window), StageWindow
}
