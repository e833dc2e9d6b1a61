package helper

import "syscall"

// init takes the process over when it was started as a helper; otherwise
// it returns at once (one read of /proc/self/cmdline).
func init() {
	args, ok := helperArgs()
	if !ok {
		return
	}
	if _, refuse := syscall.Getenv(NoGoHelper); refuse {
		say("the Go helper refuses to run (" + NoGoHelper + " is set): the C helper did not take this command")
		syscall.Exit(exitCannotConfine)
	}
	syscall.Exit(run(args))
}

// NoGoHelper, set in a helper's environment, makes the Go helper refuse
// (exit 126) instead of confining the command: tests set it to prove that
// the C helper (nsexec.c) took the command, so a broken C helper cannot
// fall back to the Go one unseen. It only ever makes a command fail.
const NoGoHelper = "YAGENT_SANDBOX_NO_GO_HELPER"

// helperArgs returns the arguments after Arg when this process was
// started as `PROGRAM __yagent-sandbox-exec …`. It reads the command line
// from /proc (os.Args does not exist yet: package os may not be
// initialised); without /proc this process is not a helper, which is
// always started through /proc/self/exe.
func helperArgs() ([]string, bool) {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	buf := make([]byte, 4096)
	n := 0
	for {
		if n == len(buf) {
			if n == 4096 && !isHelper(buf[:n]) {
				return nil, false
			}
			buf = append(buf, make([]byte, len(buf))...)
		}
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if m == 0 {
			break
		}
		n += m
	}
	if !isHelper(buf[:n]) {
		return nil, false
	}
	var args []string
	start := 0
	for i := 0; i < n; i++ {
		if buf[i] == 0 {
			args = append(args, string(buf[start:i]))
			start = i + 1
		}
	}
	if start < n {
		args = append(args, string(buf[start:n]))
	}
	return args[2:], true
}

// isHelper reports whether a command line's second argument is Arg.
func isHelper(cmdline []byte) bool {
	i := 0
	for i < len(cmdline) && cmdline[i] != 0 {
		i++
	}
	rest := cmdline[min(i+1, len(cmdline)):]
	return len(rest) > len(Arg) && string(rest[:len(Arg)]) == Arg && rest[len(Arg)] == 0
}

// say writes one line to stderr, prefixed like every message of the
// sandbox.
func say(msg string) {
	b := []byte("yagent sandbox: " + msg + "\n")
	for len(b) > 0 {
		n, err := syscall.Write(2, b)
		if err != nil || n <= 0 {
			return
		}
		b = b[n:]
	}
}
