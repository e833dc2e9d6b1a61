// Package sandbox confines the shell tool's commands with the kernel's
// Landlock LSM, in a child process: yagent never restricts itself.
//
// A confined command runs as `yagent __yagent-sandbox-exec RULES -- ARGV`:
// the re-executed yagent (or test binary) sees the marker in MaybeRunHelper,
// the first thing its main (or TestMain) does, restricts itself with the
// rules and then replaces itself with the command (execve), so the command
// and everything it starts inherit the restriction and cannot lift it.
//
// Modes (agents.sandbox, --sandbox):
//   - workspace-write (default): read and execute anywhere; write only under
//     the workspace (its .git and .yagent excepted), a private temp dir and
//     agents.sandbox_writable; no network.
//   - read-only: the same, with nothing writable but /dev/null, /dev/zero
//     and /dev/full.
//   - off: no confinement.
//
// No network means no IPv4 or IPv6 socket: Landlock refuses TCP connect and
// bind (ABI 4+), but only for sockets whose protocol is TCP, so an MPTCP
// socket (Go's default for listeners) and UDP pass it; a seccomp filter
// therefore refuses socket(AF_INET or AF_INET6) and io_uring_setup (whose
// IORING_OP_SOCKET bypasses the socket call) with EACCES.
//
// Fail closed: on Linux a confining mode needs Landlock ABI 4 (the first
// that can refuse TCP connect and bind); with less, Policy.Err refuses every
// command and names --sandbox off. Nothing downgrades silently. On other
// systems there is no OS sandbox: the mode in force is off, and Describe
// says so as a warning.
//
// Where the kernel offers more, it is used: ABI 5 refuses ioctl on devices
// opened inside (no TIOCSTI into the person's terminal), ABI 6 keeps the
// command from signalling processes outside its sandbox (yagent itself
// included) and from connecting to abstract Unix sockets made outside, ABI
// 9 refuses connecting to path Unix sockets (docker.sock) outside the
// writable trees.
//
// # Keeping .git and .yagent read-only inside a writable tree
//
// The protected paths (Protected) are the workspace's .git and .yagent
// (matched case-insensitively against the names on disk), and, when .git is
// a file — a linked worktree's or a submodule's "gitdir: PATH" — the git
// directory it names and its common directory, the main repository's .git
// where hooks and config live, wherever they are: a worktree whose main
// repository sits under agents.sandbox_writable must not get its hooks
// rewritten through it.
//
// A Landlock rule on a directory grants its rights to the whole hierarchy
// beneath it, and no rule can take a right back from a subdirectory. So a
// writable tree T that contains a protected path P is never granted as a whole: grant
// walks from T towards P and grants every entry of each directory on the way
// except the one leading to P, recursively, and grants nothing on the
// directories it split (the workspace root itself, in the usual case). The
// effect is exact for existing entries: everything but P stays writable
// (files in place, directories with everything beneath them), and P gets no
// write right. The price is that a split directory's own entries can be
// neither created, removed nor renamed by a command: a new file directly in
// the workspace root is refused (use a subdirectory, or the write_file tool,
// which is not sandboxed but gated by the approval policy). The rules are
// computed for every command, so an entry created in between (by write_file,
// or by the person) is writable from the next command on. Symbolic links
// among the split entries are skipped: Landlock would follow them, and a
// link could lead into P or out of the tree; whatever they point to is
// writable only if a rule covers the target. The same construction applies
// to the temp dir and every writable root, so a root that contains the
// workspace does not reopen .git.
//
// Explain turns a refusal in a command's output (EACCES, EPERM, a failed
// connect) into text naming the path or connection, why it was refused and
// how the person can allow it.
package sandbox
