// Package prompt renders the prompt files that packages keep beside their
// code (prompts/NAME.md, embedded): one loader instead of one per package.
package prompt

import (
	"fmt"
	"io/fs"
	"strings"
)

// Render reads prompts/NAME.md from fsys and replaces each {{key}} by its
// value. A missing file is a programming error (the files are embedded and
// every package's tests render its prompts), so it panics.
func Render(fsys fs.FS, name string, vars map[string]string) string {
	data, err := fs.ReadFile(fsys, "prompts/"+name+".md")
	if err != nil {
		panic(fmt.Sprintf("prompt %s: %v", name, err))
	}
	pairs := make([]string, 0, 2*len(vars))
	for k, v := range vars {
		pairs = append(pairs, "{{"+k+"}}", v)
	}
	return strings.TrimSpace(strings.NewReplacer(pairs...).Replace(string(data)))
}
