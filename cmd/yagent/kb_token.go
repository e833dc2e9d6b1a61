package main

import (
	"context"
	"fmt"
	"io"

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
		Example: `  yagent kb token create --name claude --read
  yagent kb token ls
  yagent kb token revoke claude`,
	}
	cmd.AddCommand(NewCmdKBTokenCreate(f), NewCmdKBTokenLs(f), NewCmdKBTokenRevoke(f))
	return cmd
}

// kbTokenCreateOptions are the inputs of `yagent kb token create`.
type kbTokenCreateOptions struct {
	Name     string
	Read     bool
	Write    bool
	Projects []string
	JSON     bool
}

// NewCmdKBTokenCreate builds `yagent kb token create`.
func NewCmdKBTokenCreate(f *Factory) *cobra.Command {
	opts := &kbTokenCreateOptions{}
	cmd := &cobra.Command{
		Use:   "create --name N --read|--write [--project H]…",
		Short: "Create a token and print its secret once",
		Example: `  # A read-only token for Claude Desktop (the secret prints once)
  yagent kb token create --name claude --read

  # A writing token limited to one project
  yagent kb token create --name ci --write --project acme/web`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kbTokenCreateRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Name, "name", "", "a name to list and revoke it by (required)")
	fl.BoolVar(&opts.Read, "read", false, "read tools only")
	fl.BoolVar(&opts.Write, "write", false, "every tool, writes included")
	fl.StringArrayVar(&opts.Projects, "project", nil, "limit the token to this project (repeat for several; default all of yours)")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON: {token, id, name, write, projects, createdAt}")
	required(cmd, "name")
	return cmd
}

func kbTokenCreateRun(ctx context.Context, f *Factory, opts *kbTokenCreateOptions) error {
	if opts.Read == opts.Write {
		return usagef("pass exactly one of --read (read tools only) and --write (every tool)")
	}
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	plain, tok, err := store.CreateToken(ctx, person, kb.TokenSpec{Name: opts.Name, Write: opts.Write, Projects: opts.Projects})
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, kb.CreatedToken{Secret: plain, Token: tok})
	}
	fmt.Fprintln(f.IO.Out, plain)
	_, err = io.WriteString(f.IO.ErrOut, tok.CreatedNotice())
	return err
}

// kbTokenLsOptions are the inputs of `yagent kb token ls`.
type kbTokenLsOptions struct {
	JSON bool
}

// NewCmdKBTokenLs builds `yagent kb token ls`.
func NewCmdKBTokenLs(f *Factory) *cobra.Command {
	opts := &kbTokenLsOptions{}
	cmd := &cobra.Command{
		Use:     "ls",
		Short:   "List your tokens by name (never their secrets), revoked ones included",
		Example: `  yagent kb token ls`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kbTokenLsRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{id, name, write, projects, createdAt, revokedAt}]")
	return cmd
}

func kbTokenLsRun(ctx context.Context, f *Factory, opts *kbTokenLsOptions) error {
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	tokens, err := store.ListTokens(ctx, person)
	if err != nil {
		return err
	}
	if opts.JSON {
		if tokens == nil {
			tokens = []kb.Token{}
		}
		return writeJSON(f.IO.Out, tokens)
	}
	if len(tokens) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "no tokens: yagent kb token create --name N --read|--write")
		return nil
	}
	_, err = io.WriteString(f.IO.Out, kb.TokensTable(tokens))
	return err
}

// kbTokenRevokeOptions are the inputs of `yagent kb token revoke`.
type kbTokenRevokeOptions struct {
	Name string
	JSON bool
}

// NewCmdKBTokenRevoke builds `yagent kb token revoke`.
func NewCmdKBTokenRevoke(f *Factory) *cobra.Command {
	opts := &kbTokenRevokeOptions{}
	cmd := &cobra.Command{
		Use:     "revoke NAME",
		Short:   "Revoke a token: its next request is refused",
		Example: `  yagent kb token revoke claude`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return kbTokenRevokeRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {revoked}")
	return cmd
}

func kbTokenRevokeRun(ctx context.Context, f *Factory, opts *kbTokenRevokeOptions) error {
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	if err := store.RevokeToken(ctx, person, opts.Name); err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, struct {
			Revoked string `json:"revoked"`
		}{opts.Name})
	}
	fmt.Fprintf(f.IO.Out, "revoked %s\n", opts.Name)
	return nil
}
