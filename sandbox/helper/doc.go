// Package helper is the sandbox's helper process: the half of the sandbox
// that runs in the child, between the fork and the command.
//
// A confined command starts as `/proc/self/exe __yagent-sandbox-exec SPEC
// -- ARGV`: the yagent binary (or a test binary) re-executed from its own
// image, never looked up by path. This package's init sees the marker and
// takes the process over before the rest of the program initialises: it
// builds the filesystem view (in the namespaces the parent created at
// fork), applies Landlock and seccomp, drops every capability and execs
// ARGV. It never returns to the program that imported it.
//
// # The C helper
//
// In a build with cgo (and glibc) the same steps are taken earlier still,
// by nsexec.c in a constructor that runs before Go's runtime starts: a
// confined command then pays for the dynamic loader and the steps' system
// calls, not for starting Go's runtime in a large binary and tearing its
// address space down at exec. It reads the same arguments, gives the same
// messages and exit codes, and loads the seccomp program the parent built
// with this package's filter (Spec.Filter, -bpf), as the Go helper does;
// this package's init then never sees a helper. Without cgo, the init
// below is the helper.
//
// # Why the Go helper imports only syscall and unsafe
//
// Go initialises packages in dependency order, and among those ready, in
// the order of their import paths. A package that needs nothing but
// syscall is ready long before goldmark, OpenTelemetry, the openai client
// and the rest of yagent are, so its init runs first and the helper skips
// initialising them: a sandboxed command then costs a few milliseconds
// more than an unconfined one instead of ten or more. Importing anything
// heavier (fmt, os, strings, x/sys/unix, go-landlock) would make this
// package wait for them, and for whatever sorts before it; so the helper
// speaks to the kernel through raw system calls, with the constants it
// needs written out here, and formats its few messages by hand.
//
// The parent side (the sandbox package) encodes a Spec; Parse decodes it.
package helper
