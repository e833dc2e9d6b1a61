package kb

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestProvenanceRecorded(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		created := f.create(t, "acme/web", "# Traced")
		createdAt := f.clock.t // the clock's last reading was the write
		f.clock.Advance(time.Minute)
		editor := f.person
		editor.Session = "tty1"
		if _, err := f.s.EditNote(t.Context(), editor, EditNoteInput{ID: created.ID, VersionToken: created.VersionToken, Mode: "append", Content: "more"}); err != nil {
			t.Fatal(err)
		}
		n := f.get(t, created.ID)
		wantCreated := Provenance{By: KindAgent, Principal: "alice", Token: "agent", Tool: "create_note", Client: "test-client", Session: "s1", At: createdAt}
		if diff := cmp.Diff(wantCreated, n.Created); diff != "" {
			t.Errorf("created provenance (-want +got):\n%s", diff)
		}
		if n.Updated.By != KindPerson || n.Updated.Token != "" || n.Updated.Tool != "edit_note" || n.Updated.Client != "test-cli" ||
			n.Updated.Session != "tty1" || !n.Updated.At.After(createdAt.Add(time.Minute-time.Millisecond)) {
			t.Errorf("updated provenance = %+v; want the person's edit a minute later", n.Updated)
		}
		// Every version is a revision with its provenance; every write is in the log.
		id, _ := parseNoteRef(created.ID)
		var revs, acts int
		f.s.db.QueryRow("SELECT count(*) FROM revisions WHERE note_id = ?", id).Scan(&revs)
		f.s.db.QueryRow("SELECT count(*) FROM activity WHERE note_id = ?", id).Scan(&acts)
		if revs != 2 || acts != 2 {
			t.Errorf("revisions %d, activity %d; want 2 and 2", revs, acts)
		}
	})
}
