package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/blackboard"
)

// maxNoteBody bounds a body read from stdin or a file.
const maxNoteBody = 16 << 20

// BoardPutOptions are the inputs of `yagent board put`.
type BoardPutOptions struct {
	IO         *IOStreams
	Board      string
	Agent      string
	Status     string
	Task       string
	Conclusion string
	Reason     string
	Facts      []string
	Artifacts  []string
	BodyFile   string
	JSON       bool
	f          *Factory
}

// NewCmdBoardPut builds `yagent board put`.
func NewCmdBoardPut(f *Factory, runF func(*BoardPutOptions) error) *cobra.Command {
	opts := &BoardPutOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   "put --board ID --agent A [flags] < body.md",
		Short: "Post a note the way a delegation does; prints its ref",
		Long: `Post a note to a board exactly as a finished delegation would: the flags
make the handoff (front matter), stdin (or --body-file) is the full body.
Many processes may post to one board at once; none is lost.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return boardPutRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Board, "board", "", "board id (required)")
	fl.StringVar(&opts.Agent, "agent", "", "agent name (required)")
	fl.StringVar(&opts.Status, "status", "ok", "ok, partial, error or degraded")
	fl.StringVar(&opts.Task, "task", "", "the task the note answers")
	fl.StringVar(&opts.Conclusion, "conclusion", "", "one-line conclusion (shown in the index)")
	fl.StringVar(&opts.Reason, "reason", "", "why the status is not ok")
	fl.StringArrayVar(&opts.Facts, "fact", nil, "a fact (repeatable)")
	fl.StringArrayVar(&opts.Artifacts, "artifact", nil, "an artifact id, e.g. a file path (repeatable)")
	fl.StringVar(&opts.BodyFile, "body-file", "", "read the body from this file instead of stdin")
	fl.BoolVar(&opts.JSON, "json", false, "print the new note's metadata as JSON (fields as in board ls)")
	_ = cmd.MarkFlagRequired("board")
	_ = cmd.MarkFlagRequired("agent")
	return cmd
}

func boardPutRun(opts *BoardPutOptions) error {
	store, err := openBoard(opts.f, opts.Board, false)
	if err != nil {
		return err
	}
	status := blackboard.Status(opts.Status)
	if !status.Valid() {
		return usagef("--status %q: want ok, partial, error or degraded", opts.Status)
	}
	body, err := readBody(opts)
	if err != nil {
		return err
	}
	m, err := store.WriteNote(opts.Board, blackboard.NewNote{
		Handoff: blackboard.Handoff{
			Status: status, Agent: opts.Agent, Task: opts.Task, Conclusion: opts.Conclusion,
			Reason: opts.Reason, Facts: opts.Facts, Artifacts: opts.Artifacts,
		},
		Body: body,
	})
	if err != nil {
		return boardErr(err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, m)
	}
	fmt.Fprintln(opts.IO.Out, m.Ref)
	return nil
}

func readBody(opts *BoardPutOptions) (string, error) {
	var r io.Reader = opts.IO.In
	name := "stdin"
	if opts.BodyFile != "" {
		file, err := os.Open(opts.BodyFile)
		if err != nil {
			return "", usagef("--body-file: %v", err)
		}
		defer file.Close()
		r, name = file, opts.BodyFile
	} else if opts.IO.InTTY {
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
