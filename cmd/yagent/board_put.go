package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/flagvalue"
	"github.com/yagent/yagent/internal/iostreams"
)

// maxNoteBody bounds a body read from stdin or a file.
const maxNoteBody = 16 << 20

// boardPutOptions are the inputs of `yagent board put`.
type boardPutOptions struct {
	Board      string
	Agent      string
	Status     flagvalue.Status
	Task       string
	Conclusion string
	Reason     string
	Facts      []string
	Artifacts  []string
	BodyFile   string
	JSON       bool
}

// NewCmdBoardPut builds `yagent board put`.
func NewCmdBoardPut(f *Factory) *cobra.Command {
	opts := &boardPutOptions{}
	cmd := &cobra.Command{
		Use:   "put --board ID --agent A [flags] < body.md",
		Short: "Post a note the way a delegation does; prints its ref",
		Long: `Post a note to a board exactly as a finished delegation would: the flags
make the handoff (front matter), stdin (or --body-file) is the full body.
Many processes may post to one board at once; none is lost.`,
		Example: `  # Post a finished handoff; prints its ref
  yagent board put --board demo --agent explorer --conclusion "The parser is fine" < findings.md

  # A partial one, with a fact and the body from a file
  yagent board put --board demo --agent reviewer --status partial --fact "tests pass" --body-file review.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return boardPutRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Board, "board", "", "board id (required)")
	fl.StringVar(&opts.Agent, "agent", "", "agent name (required)")
	opts.Status = flagvalue.Status(blackboard.StatusOK)
	fl.Var(&opts.Status, "status", "ok, partial, error or degraded")
	fl.StringVar(&opts.Task, "task", "", "the task the note answers")
	fl.StringVar(&opts.Conclusion, "conclusion", "", "one-line conclusion (shown in the index)")
	fl.StringVar(&opts.Reason, "reason", "", "why the status is not ok")
	fl.StringArrayVar(&opts.Facts, "fact", nil, "a fact (repeatable)")
	fl.StringArrayVar(&opts.Artifacts, "artifact", nil, "an artifact id, e.g. a file path (repeatable)")
	fl.StringVar(&opts.BodyFile, "body-file", "", "read the body from this file instead of stdin")
	fl.BoolVar(&opts.JSON, "json", false, "print the new note's metadata as JSON (fields as in board ls)")
	required(cmd, "board")
	required(cmd, "agent")
	return cmd
}

func boardPutRun(ctx context.Context, f *Factory, opts *boardPutOptions) error {
	store, err := openBoard(f, opts.Board, false)
	if err != nil {
		return err
	}
	body, err := readBody(f.IO, opts.BodyFile)
	if err != nil {
		return err
	}
	m, err := store.WriteNote(opts.Board, blackboard.NewNote{
		Handoff: blackboard.Handoff{
			Status: blackboard.Status(opts.Status), Agent: opts.Agent, Task: opts.Task, Conclusion: opts.Conclusion,
			Reason: opts.Reason, Facts: opts.Facts, Artifacts: opts.Artifacts,
		},
		Body: body,
	})
	if err != nil {
		return blackboard.Advise(err)
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, m)
	}
	fmt.Fprintln(f.IO.Out, m.Ref)
	return nil
}

// readBody reads a note body from bodyFile, else from stdin (not a
// terminal: nobody types a note there).
func readBody(streams *iostreams.IOStreams, bodyFile string) (string, error) {
	var r io.Reader = streams.In
	name := "stdin"
	if bodyFile != "" {
		file, err := os.Open(bodyFile)
		if err != nil {
			return "", usagef("--body-file: %v", err)
		}
		defer file.Close()
		r, name = file, bodyFile
	} else if streams.InTTY {
		return "", usagef("pipe the note body on stdin (yagent board put … < body.md) or pass --body-file")
	}
	data, err := io.ReadAll(io.LimitReader(r, maxNoteBody+1))
	if err != nil {
		return "", fmt.Errorf("read note body from %s: %w", name, err)
	}
	if len(data) > maxNoteBody {
		return "", usagef("note body from %s is over %d MiB: put the bulk in a file and name it with --artifact", name, maxNoteBody>>20)
	}
	return string(data), nil
}
