// Package setup is `yagent setup`, also what bare `yagent` runs on a
// terminal when no model is configured: it asks for a provider (llm's
// profile table), its base URL, where the key is (an environment
// variable's name, or the key pasted and kept 0600 in $YAGENT_HOME/keys/),
// and a model from the endpoint's /models (typed when that fails); it
// resolves the window and price (config.ResolveModelFacts) and writes
// models.default into $YAGENT_HOME/config.yaml atomically, keeping every
// other key of an existing file. Without a terminal nobody is asked:
// OneLine is the configuration to write by hand.
package setup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/atomicfile"
	"github.com/yagent/yagent/internal/termsafe"
	"github.com/yagent/yagent/llm"
)

// Options are what a setup reads from and writes to.
type Options struct {
	// Home is $YAGENT_HOME: config.yaml and keys/ are written there.
	Home string
	// In gives the answers, one a line; Out gets the questions (stderr).
	In  io.Reader
	Out io.Writer
	// ReadSecret reads a pasted key without showing it (a terminal's
	// no-echo read, TerminalSecret); nil reads a line of In.
	ReadSecret func(ctx context.Context) (string, error)
	// Getenv tells whether a named key variable is set.
	Getenv func(string) string
	// HTTPClient asks /models (nil: http.DefaultClient).
	HTTPClient *http.Client
	// ListTimeout bounds the wait for /models (0: listTimeout).
	ListTimeout time.Duration
}

// Result is what a setup wrote.
type Result struct {
	File, Model, BaseURL string
	Facts                config.ModelFacts
}

// ErrStopped is a setup the person left before it wrote anything.
var ErrStopped = errors.New("setup stopped before writing anything: run yagent setup to start again")

// ErrNoAnswers is a setup whose input ended before the first answer:
// nobody is there to ask (OneLine is what to write instead).
var ErrNoAnswers = errors.New("no answers to read")

// OneLine is the configuration to put in config.yaml by hand when nobody
// can be asked.
const OneLine = `models: {default: {base_url: https://api.openai.com/v1, api_key_env: OPENAI_API_KEY, model: gpt-4.1-mini}}`

// listTimeout bounds the wait for /models (a host that never answers);
// the model id is typed then.
const listTimeout = 20 * time.Second

// maxListed is how many models are listed at once; more are narrowed by
// typing part of an id.
const maxListed = 30

// Run asks the questions and writes the configuration.
func Run(ctx context.Context, o Options) (Result, error) {
	file := filepath.Join(o.Home, "config.yaml")
	doc, err := readConfig(file)
	if err != nil {
		return Result{}, err
	}
	lines := lineReader(o.In)
	answered := false
	ask := func(q string) (string, error) {
		fmt.Fprint(o.Out, q)
		s, err := lines(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			fmt.Fprintln(o.Out)
			return "", stopped(ctx.Err())
		case err != nil && !answered:
			fmt.Fprintln(o.Out)
			return "", ErrNoAnswers
		case err != nil:
			fmt.Fprintln(o.Out)
			return "", ErrStopped
		}
		answered = true
		return strings.TrimSpace(s), nil
	}
	fmt.Fprintf(o.Out, "Setting up a model for yagent (written to %s; Ctrl-C stops, yagent setup starts again).\n", file)
	if was := current(doc); was != "" {
		fmt.Fprintf(o.Out, "models.default is now model %s; this replaces it (the file's other keys are kept)\n", termsafe.Line(was))
	}
	p, err := askProvider(o.Out, ask)
	if err != nil {
		return Result{}, err
	}
	base, err := askBaseURL(o.Out, ask, p)
	if err != nil {
		return Result{}, err
	}
	secret := func() (string, error) {
		if o.ReadSecret == nil {
			return lines(ctx)
		}
		s, err := o.ReadSecret(ctx)
		fmt.Fprintln(o.Out)
		return s, err
	}
	key, err := askKey(o, ask, secret, p)
	if err != nil {
		return Result{}, err
	}
	ep := llm.EndpointConfig{BaseURL: base, APIKey: key.value, Provider: p.name, HTTPClient: o.HTTPClient}
	fmt.Fprintf(o.Out, "asking %s/models…\n", termsafe.Line(base))
	wait := o.ListTimeout
	if wait == 0 {
		wait = listTimeout
	}
	lctx, cancel := context.WithTimeout(ctx, wait)
	listed, err := llm.ListModels(lctx, ep)
	cancel()
	if ctx.Err() != nil {
		return Result{}, stopped(ctx.Err())
	}
	if err != nil {
		fmt.Fprintf(o.Out, "could not list the models: %s\n", termsafe.Line(err.Error()))
	}
	m, err := askModel(o.Out, ask, listed)
	if err != nil {
		return Result{}, err
	}
	facts, err := config.ResolveModelFacts(m.ID, m.ContextWindow, config.Price{Input: m.Input, CachedInput: m.CachedInput, Output: m.Output}, m.HasPrice)
	if err != nil {
		return Result{}, err
	}
	if key.paste != "" {
		if err := writeKey(o.Home, key.file, key.paste); err != nil {
			return Result{}, err
		}
	}
	def := modelEntry{BaseURL: base, Model: m.ID, KeyEnv: key.env, KeyFile: key.file, Facts: facts}
	if llm.GuessProvider(base) != p.name {
		def.Provider = p.name
	}
	if err := writeConfig(file, doc, def); err != nil {
		return Result{}, err
	}
	fmt.Fprintf(o.Out, "context window: %d tokens (%s)\n", facts.ContextWindow, facts.WindowFrom)
	if facts.WindowFrom == config.FromDefault {
		fmt.Fprintln(o.Out, config.WindowNotice("default", m.ID, facts.ContextWindow))
	}
	if facts.PriceFrom != "" {
		fmt.Fprintf(o.Out, "price: $%g in, $%g out per million tokens (%s)\n", facts.Price.Input, facts.Price.Output, facts.PriceFrom)
	} else {
		fmt.Fprintln(o.Out, "price: not known (no cost is shown; set models.default.price to see one)")
	}
	fmt.Fprintf(o.Out, "wrote models.default to %s: %s at %s\nnext: yagent (interactive) or yagent run \"…\"\n", file, termsafe.Line(m.ID), termsafe.Line(base))
	return Result{File: file, Model: m.ID, BaseURL: base, Facts: facts}, nil
}

// stopped is ErrStopped, wrapping why when it was the context (Ctrl-C:
// exit 130).
func stopped(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w (%w)", ErrStopped, err)
	}
	return ErrStopped
}

// lineReader reads lines of in on one goroutine, so a question waiting
// for an answer still returns when ctx ends (Ctrl-C).
func lineReader(in io.Reader) func(context.Context) (string, error) {
	type line struct {
		s   string
		err error
	}
	ch := make(chan line)
	next := make(chan struct{}, 1)
	go func() {
		r := bufio.NewReader(in)
		for range next {
			s, err := r.ReadString('\n')
			if err != nil && s != "" {
				err = nil
			}
			ch <- line{s, err}
		}
	}()
	return func(ctx context.Context) (string, error) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		next <- struct{}{}
		select {
		case l := <-ch:
			return l.s, l.err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

func askProvider(out io.Writer, ask func(string) (string, error)) (provider, error) {
	names := llm.ProviderNames()
	fmt.Fprintln(out, "Providers:")
	for i, n := range names {
		p := providerOf(n)
		fmt.Fprintf(out, "  %2d  %-16s %s\n", i+1, n, p.hint())
	}
	for {
		a, err := ask(fmt.Sprintf("provider [1-%d or a name]: ", len(names)))
		if err != nil {
			return provider{}, err
		}
		if i, err := strconv.Atoi(a); err == nil && i >= 1 && i <= len(names) {
			return providerOf(names[i-1]), nil
		}
		if slices.Contains(names, strings.ToLower(a)) {
			return providerOf(strings.ToLower(a)), nil
		}
		fmt.Fprintf(out, "%q is none of them: type its number or its name\n", termsafe.Line(a))
	}
}

func askBaseURL(out io.Writer, ask func(string) (string, error), p provider) (string, error) {
	for {
		q := "base URL: "
		if p.baseURL != "" {
			q = fmt.Sprintf("base URL [%s]: ", p.baseURL)
		}
		a, err := ask(q)
		if err != nil {
			return "", err
		}
		if a == "" {
			a = p.baseURL
		}
		if strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") {
			return strings.TrimSuffix(a, "/"), nil
		}
		fmt.Fprintln(out, "want an http(s) URL of the OpenAI-compatible endpoint, e.g. https://host/v1")
	}
}

// key is where the model's key is: a variable's name, or a pasted key
// kept in keys/file.
type key struct {
	env, file, paste string
	value            string // what /models is asked with
}

var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func askKey(o Options, ask func(string) (string, error), secret func() (string, error), p provider) (key, error) {
	def := p.keyEnv
	if def == "" {
		def = "none"
	}
	for {
		a, err := ask(fmt.Sprintf("API key: the environment variable holding it, \"paste\" to paste the key, or \"none\" [%s]: ", def))
		if err != nil {
			return key{}, err
		}
		if a == "" {
			a = def
		}
		switch {
		case a == "none":
			return key{}, nil
		case a == "paste":
			fmt.Fprint(o.Out, "paste the key (it is not shown; kept 0600 in "+config.KeyDir(o.Home)+"): ")
			s, err := secret()
			if err != nil {
				return key{}, stopped(err)
			}
			if s = strings.TrimSpace(s); s == "" {
				fmt.Fprintln(o.Out, "no key was pasted")
				continue
			}
			return key{file: p.name, paste: s, value: s}, nil
		case varName.MatchString(a):
			v := o.Getenv(a)
			if v == "" {
				fmt.Fprintf(o.Out, "%s is not set in this shell: export it before running yagent (the models are listed without a key)\n", a)
			}
			return key{env: a, value: v}, nil
		}
		fmt.Fprintf(o.Out, "%q is no variable name: type one (such as OPENAI_API_KEY), paste or none\n", termsafe.Line(a))
	}
}

func askModel(out io.Writer, ask func(string) (string, error), listed []llm.ModelInfo) (llm.ModelInfo, error) {
	shown := listed
	for {
		if len(shown) > 0 {
			fmt.Fprintln(out, "Models:")
			for i, m := range shown[:min(len(shown), maxListed)] {
				fmt.Fprintf(out, "  %2d  %s\n", i+1, termsafe.Line(m.ID))
			}
			if len(shown) > maxListed {
				fmt.Fprintf(out, "  … %d more: type part of an id to narrow the list\n", len(shown)-maxListed)
			}
		}
		q := "model id: "
		if len(shown) > 0 {
			q = "model [number, id, or part of an id]: "
		}
		a, err := ask(q)
		if err != nil {
			return llm.ModelInfo{}, err
		}
		if a == "" {
			continue
		}
		if i, err := strconv.Atoi(a); err == nil && i >= 1 && i <= min(len(shown), maxListed) {
			return shown[i-1], nil
		}
		if i := slices.IndexFunc(listed, func(m llm.ModelInfo) bool { return m.ID == a }); i >= 0 {
			return listed[i], nil
		}
		var match []llm.ModelInfo
		for _, m := range listed {
			if strings.Contains(strings.ToLower(m.ID), strings.ToLower(a)) {
				match = append(match, m)
			}
		}
		switch {
		case len(match) == 1:
			return match[0], nil
		case len(match) > 1:
			shown = match
			continue
		case len(listed) > 0:
			fmt.Fprintf(out, "%s is not in the endpoint's list: using it as typed\n", termsafe.Line(a))
		}
		return llm.ModelInfo{ID: a}, nil
	}
}

// writeKey keeps a pasted key in keys/name, 0600, in a 0700 directory.
func writeKey(home, name, secret string) error {
	dir := config.KeyDir(home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("keep the key: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, name), []byte(secret+"\n"), 0o600); err != nil {
		return fmt.Errorf("keep the key: %w", err)
	}
	return nil
}
