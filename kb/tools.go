package kb

import (
	"context"
	"embed"
	"reflect"
	"strings"
	"sync"
)

// ToolInfo describes one intent tool. Names and descriptions are static
// text: note content never appears in them.
type ToolInfo struct {
	Name        string
	Description string
	// ReadOnly tools never change the knowledge base (a start_session visit
	// mark aside); read tokens see only these.
	ReadOnly bool
	// Destructive tools may overwrite or remove content (delete_note only
	// moves to the trash, but the note leaves every answer).
	Destructive bool
	// Idempotent tools have no further effect when repeated with the same
	// arguments.
	Idempotent bool
	// Input and Output are the argument and result struct types, for schema
	// generation (json tags; `jsonschema` tags are descriptions).
	Input, Output reflect.Type
}

//go:embed tooldesc/*.md
var toolDescFS embed.FS

func toolDescription(name string) string {
	b, err := toolDescFS.ReadFile("tooldesc/" + name + ".md")
	if err != nil {
		panic("kb: no description for tool " + name) // TestToolDescriptions keeps them in step
	}
	return strings.TrimSpace(string(b))
}

type toolDef struct {
	ToolInfo
	call func(ctx context.Context, s *Store, c Caller, args []byte) (any, error)
}

type flags struct{ readOnly, destructive, idempotent bool }

var (
	readFlags  = flags{readOnly: true, idempotent: true}
	writeFlags = flags{}
	writeIdem  = flags{idempotent: true}
)

func def[In, Out any](name string, f flags, fn func(*Store, context.Context, Caller, In) (Out, error)) toolDef {
	return toolDef{
		ToolInfo: ToolInfo{
			Name: name, Description: toolDescription(name),
			ReadOnly: f.readOnly, Destructive: f.destructive, Idempotent: f.idempotent,
			Input: reflect.TypeFor[In](), Output: reflect.TypeFor[Out](),
		},
		call: func(ctx context.Context, s *Store, c Caller, args []byte) (any, error) {
			var in In
			if err := decodeArgs(name, args, &in); err != nil {
				return nil, err
			}
			return fn(s, ctx, c, in)
		},
	}
}

// toolDefs is the table of the 21 intent tools in the seed's order.
var toolDefs = sync.OnceValue(func() []toolDef {
	return []toolDef{
		def("start_session", readFlags, (*Store).StartSession),
		def("whoami", readFlags, (*Store).Whoami),
		def("get_my_projects", readFlags, (*Store).GetMyProjects),
		def("list_notes", readFlags, (*Store).ListNotes),
		def("recent_activity", readFlags, (*Store).RecentActivity),
		def("search", readFlags, (*Store).Search),
		def("get_note", readFlags, (*Store).GetNote),
		def("recall", readFlags, (*Store).Recall),
		def("create_note", writeFlags, (*Store).CreateNote),
		def("remember_about_user", writeIdem, (*Store).RememberAboutUser),
		def("remember_about_project", writeIdem, (*Store).RememberAboutProject),
		def("edit_note", flags{destructive: true}, (*Store).EditNote),
		def("delete_note", flags{destructive: true, idempotent: true}, (*Store).DeleteNote),
		def("link", writeIdem, (*Store).Link),
		def("move_note", writeIdem, (*Store).MoveNote),
		def("rename_note", writeIdem, (*Store).RenameNote),
		def("move_folder", writeFlags, (*Store).MoveFolder),
		def("rename_folder", writeFlags, (*Store).RenameFolder),
		def("rename_project", writeIdem, (*Store).RenameProject),
		def("create_notes", writeFlags, (*Store).CreateNotes),
		def("link_many", writeIdem, (*Store).LinkMany),
	}
})

// Tools lists every intent tool in a fixed order.
func Tools() []ToolInfo {
	defs := toolDefs()
	out := make([]ToolInfo, len(defs))
	for i, d := range defs {
		out[i] = d.ToolInfo
	}
	return out
}

// ToolsFor lists the tools c may see: all of them for a write caller, the
// read-only ones for a read caller.
func ToolsFor(c Caller) []ToolInfo {
	var out []ToolInfo
	for _, t := range Tools() {
		if c.Write || t.ReadOnly {
			out = append(out, t)
		}
	}
	return out
}

func toolNames() []string {
	var names []string
	for _, d := range toolDefs() {
		names = append(names, d.Name)
	}
	return names
}
