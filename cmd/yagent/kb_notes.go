package main

import (
	"context"
	"fmt"
	"io"
	"path"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/internal/flagvalue"
	"github.com/yagent/yagent/kb"
)

// kbLsOptions are the inputs of `yagent kb ls`.
type kbLsOptions struct {
	Project string
	Folder  string
	Tag     string
	JSON    bool
}

// NewCmdKBLs builds `yagent kb ls`.
func NewCmdKBLs(f *Factory) *cobra.Command {
	opts := &kbLsOptions{}
	cmd := &cobra.Command{
		Use:   "ls [--project H] [--folder F]",
		Short: "List a folder of a project: its subfolders and notes",
		Example: `  yagent kb ls --project acme/web

  # One folder, notes with a tag
  yagent kb ls --project acme/web --folder runbooks --tag deploy`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kbLsRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project handle (default kb.project)")
	cmd.Flags().StringVar(&opts.Folder, "folder", "", "folder, e.g. guides/deploy (default the project root)")
	cmd.Flags().StringVar(&opts.Tag, "tag", "", "only notes with this tag")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {project, path, folders: [{path, notes}], notes: [{id, title, path, type, tags, updatedAt}]}")
	return cmd
}

func kbLsRun(ctx context.Context, f *Factory, opts *kbLsOptions) error {
	project, err := kbProject(f, opts.Project)
	if err != nil {
		return err
	}
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	all, err := store.ListAllNotes(ctx, person, kb.ListNotesInput{Project: project, Path: opts.Folder, Tag: opts.Tag, Limit: 200})
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, all)
	}
	if _, err := io.WriteString(f.IO.Out, all.Table()); err != nil {
		return err
	}
	if len(all.Folders)+len(all.Notes) == 0 {
		fmt.Fprintf(f.IO.ErrOut, "%s is empty\n", path.Join(all.Project, all.Path))
	}
	return nil
}

// kbShowOptions are the inputs of `yagent kb show`.
type kbShowOptions struct {
	Ref     string
	Project string
	JSON    bool
}

// NewCmdKBShow builds `yagent kb show`.
func NewCmdKBShow(f *Factory) *cobra.Command {
	opts := &kbShowOptions{}
	cmd := &cobra.Command{
		Use:   "show NOTE",
		Short: "Print a note: its header, provenance, links and body",
		Long: `Print a note. NOTE is an id such as n42 or a wiki ref such as "[[Deploy
guide]]" (a former title works too; --project picks the project to look in).`,
		Example: `  # A note by id, or by wiki ref within a project
  yagent kb show n12
  yagent kb show "Deploy guide" --project acme/web`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			return kbShowRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project to resolve a wiki ref in")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the note as get_note returns it in detailed mode")
	return cmd
}

func kbShowRun(ctx context.Context, f *Factory, opts *kbShowOptions) error {
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	n, err := store.ReadNote(ctx, person, kb.GetNoteInput{Ref: opts.Ref, Project: opts.Project, Detailed: true})
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, n)
	}
	_, err = io.WriteString(f.IO.Out, n.Text())
	return err
}

// kbSearchOptions are the inputs of `yagent kb search`.
type kbSearchOptions struct {
	Query   string
	Project string
	Limit   int
	JSON    bool
}

// NewCmdKBSearch builds `yagent kb search`.
func NewCmdKBSearch(f *Factory) *cobra.Command {
	opts := &kbSearchOptions{}
	cmd := &cobra.Command{
		Use:   "search QUERY [--project H]",
		Short: "Search notes: hybrid (full text + vectors), or full text alone (mode fts)",
		Long: `Search the notes you can reach (and your agents' memory). The search is
hybrid when kb.embeddings.model is set and its endpoint answers, else full
text only; the first line (and "mode" in --json) says which.`,
		Example: `  yagent kb search "deploy rollback"

  # One project, ten results, as JSON
  yagent kb search "rate limits" --project acme/web --limit 10 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = args[0]
			return kbSearchRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "search this project only (default: everything you can reach)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 10, "number of results, 1 to 50")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {mode, results: [{id, title, project, path, class, snippet, score}], notice}")
	return cmd
}

func kbSearchRun(ctx context.Context, f *Factory, opts *kbSearchOptions) error {
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	out, err := store.Search(ctx, person, kb.SearchInput{Query: opts.Query, Project: opts.Project, Limit: opts.Limit})
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, out)
	}
	fmt.Fprintf(f.IO.ErrOut, "mode: %s", out.Mode)
	if out.Notice != "" {
		fmt.Fprintf(f.IO.ErrOut, " (%s)", out.Notice)
	}
	fmt.Fprintln(f.IO.ErrOut)
	if len(out.Results) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "no notes match")
	}
	_, err = io.WriteString(f.IO.Out, out.Table())
	return err
}

// kbRecallOptions are the inputs of `yagent kb recall`.
type kbRecallOptions struct {
	Topic   string
	Project string
	Budget  flagvalue.Count
	JSON    bool
}

// NewCmdKBRecall builds `yagent kb recall`.
func NewCmdKBRecall(f *Factory) *cobra.Command {
	opts := &kbRecallOptions{}
	cmd := &cobra.Command{
		Use:   "recall TOPIC [--budget N]",
		Short: "Print the context bundle an agent gets for a topic: notes and their graph neighbours",
		Example: `  # The context bundle an agent would get about a topic
  yagent kb recall "release process" --budget 4000`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Topic = args[0]
			return kbRecallRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "recall from this project only")
	cmd.Flags().Var(&opts.Budget, "budget", "size of the bundle in tokens (default 6000, at most 24000)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {topic, mode, budgetTokens, usedTokens, notes: [{id, title, project, path, class, reason, body, truncated, updated}], cut: [{id, title, reason, tokens}]}")
	return cmd
}

func kbRecallRun(ctx context.Context, f *Factory, opts *kbRecallOptions) error {
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	out, err := store.Recall(ctx, person, kb.RecallInput{Topic: opts.Topic, Project: opts.Project, BudgetTokens: int(opts.Budget)})
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, out)
	}
	body, notice := out.Text()
	fmt.Fprint(f.IO.ErrOut, notice)
	_, err = io.WriteString(f.IO.Out, body)
	return err
}
