//go:build linux && (amd64 || arm64 || riscv64)

package helper

import "syscall"

// run confines this process as the arguments say and execs the command;
// it returns only when the command could not be started, with the exit
// code to leave with. It runs during package initialisation, on the main
// thread (the runtime locks it there until main), which is the thread
// that execs: capabilities, no_new_privs, Landlock and seccomp are set on
// it and pass to the command.
func run(args []string) int {
	s, err := Parse(args)
	if err != nil {
		say("bad helper arguments: " + err.Error())
		return exitCannotConfine
	}
	switch s.Mechanism {
	case Probe:
		if err := probe(); err != nil {
			say(err.Error())
			return exitCannotConfine
		}
		return 0
	case View:
		if err := buildView(s); err != nil {
			say("could not build the sandbox's view of the filesystem, so the command did not run: " + err.Error())
			return exitCannotConfine
		}
	}
	if s.Dir != "" {
		// Again: the directory the parent entered is the host's mount,
		// under the view's binds.
		if err := syscall.Chdir(s.Dir); err != nil {
			say("enter " + s.Dir + ": " + err.Error())
			return exitCannotConfine
		}
	}
	env := syscall.Environ()
	path, err := lookPath(s.Argv[0], env)
	if err != nil {
		say(err.Error())
		return exitNotFound
	}
	if err := confine(s); err != nil {
		say("could not confine the command, so it did not run: " + err.Error())
		return exitCannotConfine
	}
	err = syscall.Exec(path, s.Argv, env)
	say("exec " + s.Argv[0] + ": " + err.Error())
	return exitCannotConfine
}

// confine sets no_new_privs, drops every capability, then applies
// Landlock and the seccomp filter to this thread.
func confine(s *Spec) error {
	if err := prctl(prSetNoNewPrivs, 1, 0); err != nil {
		return wrap("no_new_privs", err)
	}
	if err := dropCapabilities(); err != nil {
		return wrap("drop capabilities", err)
	}
	if s.ABI > 0 {
		if err := restrict(s); err != nil {
			return wrap("landlock", err)
		}
	}
	return wrap("seccomp", installFilter(s.Filter))
}

// lookPath finds a command as a shell would: a name with a slash as it
// is, else the first executable regular file of that name in PATH.
func lookPath(name string, env []string) (string, error) {
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			return name, nil
		}
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		// An empty PATH is one empty entry, the current directory, as
		// dash and bash read it; only a missing one means the usual
		// directories.
		if len(kv) >= 5 && kv[:5] == "PATH=" {
			path = kv[5:]
		}
	}
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) && path[i] != ':' {
			continue
		}
		dir := path[start:i]
		start = i + 1
		if dir == "" {
			dir = "."
		}
		p := dir + "/" + name
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && syscall.Access(p, 1) == nil {
			return p, nil
		}
	}
	return "", errorString(name + ": command not found")
}

func prctl(op, a, b uintptr) error {
	if _, _, e := syscall.RawSyscall6(sysPrctl, op, a, b, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// wrap prefixes an error with what was being done (nil stays nil).
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return errorString(what + ": " + err.Error())
}
