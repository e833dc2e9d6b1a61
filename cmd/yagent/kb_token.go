package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/kb"
)

// NewCmdKBToken builds `yagent kb token`.
func NewCmdKBToken(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Create, list and revoke the tokens your agents reach the knowledge base with",
		Long: `A token lets an agent (Claude Code, Codex, yagent mcp serve's clients) act for
you: a read token sees the read tools only, a write token every tool; --project
limits it to those projects. The secret is printed once, at creation; only
its hash is stored.`,
		Args: cobra.ArbitraryArgs,
		RunE: groupRunE,
	}
	cmd.AddCommand(NewCmdKBTokenCreate(f, nil), NewCmdKBTokenLs(f, nil), NewCmdKBTokenRevoke(f, nil))
	return cmd
}

// KBTokenCreateOptions are the inputs of `yagent kb token create`.
type KBTokenCreateOptions struct {
	IO       *IOStreams
	Name     string
	Read     bool
	Write    bool
	Projects []string
	JSON     bool
	f        *Factory
}

// NewCmdKBTokenCreate builds `yagent kb token create`.
func NewCmdKBTokenCreate(f *Factory, runF func(*KBTokenCreateOptions) error) *cobra.Command {
	opts := &KBTokenCreateOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   "create --name N --read|--write [--project H]…",
		Short: "Create a token and print its secret once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return kbTokenCreateRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Name, "name", "", "a name to list and revoke it by (required)")
	fl.BoolVar(&opts.Read, "read", false, "read tools only")
	fl.BoolVar(&opts.Write, "write", false, "every tool, writes included")
	fl.StringArrayVar(&opts.Projects, "project", nil, "limit the token to this project (repeat for several; default all of yours)")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON: {token, id, name, write, projects, createdAt}")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

func kbTokenCreateRun(ctx context.Context, opts *KBTokenCreateOptions) error {
	if opts.Read == opts.Write {
		return usagef("pass exactly one of --read (read tools only) and --write (every tool)")
	}
	store, person, err := kbOpen(ctx, opts.f)
	if err != nil {
		return err
	}
	plain, tok, err := store.CreateToken(ctx, person, kb.TokenSpec{Name: opts.Name, Write: opts.Write, Projects: opts.Projects})
	if err != nil {
		return kbErr(err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, struct {
			Secret string `json:"token"`
			kb.Token
		}{plain, tok})
	}
	fmt.Fprintln(opts.IO.Out, plain)
	fmt.Fprintf(opts.IO.ErrOut, "created %s token %q (projects: %s); the secret above is shown only now: give it to the client\n(YAGENT_KB_TOKEN for yagent mcp serve on stdio, an Authorization: Bearer header over --http)\n",
		access(tok.Write), tok.Name, joinOr(tok.Projects, "all of yours"))
	return nil
}

func access(write bool) string {
	if write {
		return "write"
	}
	return "read"
}

// KBTokenLsOptions are the inputs of `yagent kb token ls`.
type KBTokenLsOptions struct {
	IO   *IOStreams
	JSON bool
	f    *Factory
}

// NewCmdKBTokenLs builds `yagent kb token ls`.
func NewCmdKBTokenLs(f *Factory, runF func(*KBTokenLsOptions) error) *cobra.Command {
	opts := &KBTokenLsOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List your tokens by name (never their secrets), revoked ones included",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return kbTokenLsRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{id, name, write, projects, createdAt, revokedAt}]")
	return cmd
}

func kbTokenLsRun(ctx context.Context, opts *KBTokenLsOptions) error {
	store, person, err := kbOpen(ctx, opts.f)
	if err != nil {
		return err
	}
	tokens, err := store.ListTokens(ctx, person)
	if err != nil {
		return kbErr(err)
	}
	if opts.JSON {
		if tokens == nil {
			tokens = []kb.Token{}
		}
		return writeJSON(opts.IO.Out, tokens)
	}
	if len(tokens) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no tokens: yagent kb token create --name N --read|--write")
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tACCESS\tPROJECTS\tCREATED\tREVOKED")
	for _, t := range tokens {
		revoked := "-"
		if t.RevokedAt != nil {
			revoked = t.RevokedAt.UTC().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.Name, access(t.Write), joinOr(t.Projects, "all"), t.CreatedAt.UTC().Format(time.DateTime), revoked)
	}
	return tw.Flush()
}

// KBTokenRevokeOptions are the inputs of `yagent kb token revoke`.
type KBTokenRevokeOptions struct {
	IO   *IOStreams
	Name string
	JSON bool
	f    *Factory
}

// NewCmdKBTokenRevoke builds `yagent kb token revoke`.
func NewCmdKBTokenRevoke(f *Factory, runF func(*KBTokenRevokeOptions) error) *cobra.Command {
	opts := &KBTokenRevokeOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke a token: its next request is refused",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return kbTokenRevokeRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {revoked}")
	return cmd
}

func kbTokenRevokeRun(ctx context.Context, opts *KBTokenRevokeOptions) error {
	store, person, err := kbOpen(ctx, opts.f)
	if err != nil {
		return err
	}
	if err := store.RevokeToken(ctx, person, opts.Name); err != nil {
		return kbErr(err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, struct {
			Revoked string `json:"revoked"`
		}{opts.Name})
	}
	fmt.Fprintf(opts.IO.Out, "revoked %s\n", opts.Name)
	return nil
}
