package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// ttyAsker asks yes/no questions on the terminal.
type ttyAsker struct {
	mu     sync.Mutex
	in     io.Reader
	out    io.Writer
	reader *bufio.Reader
	always bool
}

func (a *ttyAsker) Ask(ctx context.Context, question string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.always {
		return true, nil
	}
	if a.reader == nil {
		a.reader = bufio.NewReader(a.in)
	}
	fmt.Fprintf(a.out, "? %s — allow? [y]es / [n]o / [a]lways: ", question)
	line, err := a.reader.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	case "a", "always":
		a.always = true
		return true, nil
	}
	return false, nil
}
