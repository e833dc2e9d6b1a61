package sandbox

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// A view has its own System V IPC: a segment made outside is not there.
func TestIPCNamespace(t *testing.T) {
	needView(t)
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o666)
	if err != nil {
		t.Skipf("no System V shared memory here: %v", err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	b := newBox(t, View)
	p := b.policy(t, WorkspaceWrite)
	if out, ok := tryNet(t, b.policy(t, Off), b.ws, fmt.Sprint("shm ", id)); !ok {
		t.Fatalf("the segment cannot be attached unconfined either: %q", out)
	}
	if out, ok := tryNet(t, p, b.ws, fmt.Sprint("shm ", id)); ok {
		t.Errorf("a confined command attached the segment %d made outside: %q", id, out)
	}
}
