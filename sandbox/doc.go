// Package sandbox confines the shell tool's commands, in a child process:
// yagent never restricts itself.
//
// A confined command runs as `/proc/self/exe __yagent-sandbox-exec SPEC --
// ARGV`: the running yagent image (never looked up by path, so a replaced
// binary changes nothing) re-executed; the sandbox/helper package takes
// that process over in its init, builds what SPEC says and execs the
// command, which everything it starts inherits.
//
// # Two mechanisms
//
// A view (Linux with user namespaces, the default): the command gets
// namespaces of its own — user, mount, pid, ipc and network — made at fork
// (Go cannot unshare a user namespace in a running, threaded process), and
// the helper builds a filesystem view in them:
//
//   - the root filesystem read-only;
//   - a private /tmp: a directory under $YAGENT_HOME/tmp, one per Scope
//     (the director's session, each delegation), kept between its
//     commands; the system temp dir is not visible; TMPDIR=/tmp;
//   - the workspace and agents.sandbox_writable bound writable, new
//     entries in the workspace root included;
//   - read-only on top: the protected paths (Protected: .git and the git
//     directory a .git file names, .yagent, .claude/settings*.json,
//     .mcp.json, .envrc) and the yagent binary when a writable root holds
//     it; a protected name the workspace lacks gets an empty directory for
//     the command's life (placeholder_linux.go), so it cannot be created;
//   - hidden (an empty read-only mask, not merely read-only, because a
//     Unix socket stays reachable through a read-only bind and a new
//     network namespace): $YAGENT_HOME, the credential stores under the
//     person's home (~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gcloud,
//     ~/.docker …), $XDG_RUNTIME_DIR, /run (docker.sock, the D-Bus buses,
//     systemd's private socket), the ssh-agent socket; widened by
//     agents.sandbox_visible;
//   - the workspace's own cache at /tmp/.cache (XDG_CACHE_HOME: Go's build
//     cache, pip's …), kept under $YAGENT_HOME per workspace, so a command
//     never writes the caches the person's own builds read;
//   - a minimal /dev, the /proc of its pid namespace (it sees its own
//     processes), and a network namespace whose loopback it may use (a
//     test's local server works) with nothing reaching outside.
//
// Landlock (at whatever ABI the kernel has) and a seccomp filter are a
// second layer inside the view; every capability is dropped and
// no_new_privs set, also for root (a command keeping CAP_SYS_ADMIN over
// its namespaces could unmount the read-only binds).
//
// Landlock alone (user namespaces refused: a kernel setting, or Ubuntu's
// AppArmor restriction), with its limits: Landlock ABI 4+ grants writes
// under the writable roots and a seccomp filter refuses IP sockets (no
// network at all, loopback included); nothing is hidden (commands can read
// what the person can); and since a Landlock rule grants its rights to a
// whole hierarchy and cannot take them back from a subdirectory, a
// writable root holding a protected path is granted entry by entry around
// it (split.go): nothing can be created, removed or renamed directly in a
// workspace root that holds .git, and a protected name the workspace lacks
// (.yagent) can be created. The run header and `config show` say which
// mechanism is in force (Describe).
//
// Fail closed: where neither works, Policy.Err refuses every command and
// names --sandbox off. Nothing downgrades silently. On other systems there
// is no OS sandbox: the mode in force is off, and Describe warns.
//
// Commands get an allow-listed environment (env.go): never a provider key
// or a *_KEY/*_TOKEN/*_SECRET/*_PASSWORD variable unless
// agents.sandbox_env names it.
//
// # Why our own helper, not bubblewrap
//
// bwrap builds the same kind of view and codex and Claude Code use it. The
// helper is yagent's own because: bwrap is not installed on most machines
// (Debian's bubblewrap package), and a binary found on PATH reopens the
// escape of a replaced helper unless pinned; Landlock, the seccomp filter
// and the capability drop belong in the process that execs the command,
// so bwrap would need a second stage of ours after it (two execs per
// command); and where unprivileged user namespaces are restricted
// (Ubuntu's AppArmor) bwrap fails like our helper unless bubblewrap's
// AppArmor profile is loaded — the one case where using bwrap when it is
// installed would gain something (a candidate for later). Cost, measured
// 2026-12-01 (BenchmarkCommandCost): bwrap --unshare-all --ro-bind / /
// with no view costs 3.4–5.2 ms a command, our whole view 4.9–7.3 ms
// (+4.1–6.3 ms over an unconfined one; 1.37–1.58× bwrap): starting the
// helper (the yagent binary, re-executed) and the network namespace are
// most of it.
//
// Explain turns a refusal in a command's output (EACCES, EPERM, EROFS, a
// failed connect or name lookup, a hidden path) into text naming the path
// or connection, why it was refused and how the person can allow it.
package sandbox
