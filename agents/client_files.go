package agents

import (
	"context"
	"fmt"
	"path/filepath"
)

// ClientFiles reads and writes the files of the file tools through the
// client that shows them — an editor over the Agent Client Protocol
// (fs/read_text_file, fs/write_text_file), which sees its unsaved buffers
// and records the edit — instead of the disk. Only the last step moves:
// the path is checked as before (Workspace.Rel, the walk that never
// follows a link out, protected paths asked about or refused, a
// delegation kept in its worktree), and the client is given the absolute
// path that check resolved. A nil function keeps that side on the disk.
type ClientFiles struct {
	Read  func(ctx context.Context, path string) (string, error)
	Write func(ctx context.Context, path, content string) error
}

// clientFilesKey carries a run's ClientFiles in its context.
type clientFilesKey struct{}

// WithClientFiles makes the file tools called with the returned context
// read and write through cf.
func WithClientFiles(ctx context.Context, cf ClientFiles) context.Context {
	return context.WithValue(ctx, clientFilesKey{}, cf)
}

func clientFiles(ctx context.Context) ClientFiles {
	cf, _ := ctx.Value(clientFilesKey{}).(ClientFiles)
	return cf
}

// clientRead is the text of the checked file rel as the client has it
// (data, read from the disk, without a client that reads).
func (w *Workspace) clientRead(ctx context.Context, rel string, data []byte) ([]byte, error) {
	read := clientFiles(ctx).Read
	if read == nil {
		return data, nil
	}
	text, err := read(ctx, filepath.Join(w.dir, rel))
	if err != nil {
		return nil, fmt.Errorf("the editor could not read it: %w", err)
	}
	return []byte(text), nil
}
