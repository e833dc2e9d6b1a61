// Package pgtest starts a throwaway PostgreSQL server for tests: initdb and
// pg_ctl in a temporary directory, listening on a free loopback port, run as
// the `postgres` user when the tests run as root (PostgreSQL refuses root).
// One server serves a whole test binary; every caller of New gets a fresh,
// empty database on it. The package's TestMain must call Run so the server
// stops when the tests end:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
//
// Where no PostgreSQL binaries exist, New skips the test and says so —
// unless YAGENT_REQUIRE_POSTGRES=1 (set by .ci/run), where a missing or
// broken server fails the test instead: CI never skips these suites.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// RequireEnv, set to 1, turns "no PostgreSQL here" from a skip into a
// failure.
const RequireEnv = "YAGENT_REQUIRE_POSTGRES"

// Server is a running throwaway PostgreSQL server.
type Server struct {
	dir  string // parent of data/ and the socket
	bin  string // directory of initdb, pg_ctl, postgres
	port int
	cred *syscall.Credential
}

var (
	mu      sync.Mutex
	shared  *Server
	initErr error
	tried   bool
	dbSeq   atomic.Int64
)

// Run runs the tests and then stops the shared server, if one started.
func Run(m interface{ Run() int }) int {
	code := m.Run()
	mu.Lock()
	defer mu.Unlock()
	if shared != nil {
		shared.stop()
		shared = nil
	}
	return code
}

// New returns the DSN of a new, empty database on the shared server,
// starting the server on first use. It skips the test where PostgreSQL is
// not installed (fails under YAGENT_REQUIRE_POSTGRES=1).
func New(t testing.TB) string {
	t.Helper()
	srv := server(t)
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.DSN("postgres"))
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, srv.DSN("postgres")); err == nil {
			conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			conn.Close(ctx)
		}
	})
	return srv.DSN(name)
}

// Restart restarts the shared server (pg_ctl restart -m fast): every
// session is dropped, the data stays, and the server listens again on the
// same port when Restart returns. For tests of what survives a restart;
// such a test must not run in parallel with others on the server.
func Restart(t testing.TB) {
	t.Helper()
	srv := server(t)
	mu.Lock()
	defer mu.Unlock()
	if out, err := srv.run("pg_ctl", "-D", filepath.Join(srv.dir, "data"), "-l", filepath.Join(srv.dir, "log"), "-m", "fast", "-w", "-t", "60", "restart"); err != nil {
		t.Fatalf("pgtest: pg_ctl restart: %v\n%s", err, out)
	}
}

// DSN is the connection string of database db on the server.
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// Port is the server's loopback TCP port.
func (s *Server) Port() int { return s.port }

func server(t testing.TB) *Server {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if !tried {
		tried = true
		shared, initErr = start()
	}
	if initErr != nil {
		if errors.Is(initErr, errNoBinaries) && os.Getenv(RequireEnv) != "1" {
			t.Skipf("pgtest: %v; install PostgreSQL (apt install postgresql) to run this test", initErr)
		}
		t.Fatalf("pgtest: %v", initErr)
	}
	return shared
}

var errNoBinaries = errors.New("no PostgreSQL server binaries (initdb, pg_ctl, postgres) found")

// binDir finds the newest /usr/lib/postgresql/N/bin, else initdb on PATH.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errNoBinaries
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root and there is no postgres user to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	// Not t.TempDir: the server's user must reach the directory.
	if s.dir, err = os.MkdirTemp("", "yagent-pgtest-"); err != nil {
		return nil, err
	}
	if err := os.Chmod(s.dir, 0o700); err != nil {
		return nil, err
	}
	if s.cred != nil {
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(s.dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "-N"); err != nil {
		s.removeDir()
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	for attempt := 0; ; attempt++ {
		if s.port, err = freePort(); err != nil {
			s.removeDir()
			return nil, err
		}
		opts := fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", s.port, s.dir)
		out, err := s.run("pg_ctl", "-D", data, "-l", filepath.Join(s.dir, "log"), "-o", opts, "-w", "-t", "60", "start")
		if err == nil {
			s.watch()
			return s, nil
		}
		if attempt == 2 {
			log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
			s.removeDir()
			return nil, fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
		}
	}
}

// runTimeout bounds one initdb or pg_ctl (which waits at most 60 s for
// the server): a hung one is killed, and its output returned with the
// error, rather than hang the tests.
const runTimeout = 3 * time.Minute

func (s *Server) run(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, name), args...)
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	out, err := cmd.CombinedOutput()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("%s killed: still running after %s: %w", name, runTimeout, err)
	}
	return out, err
}

// watch starts a watchdog that outlives a killed test binary (its own
// session, so a signal to the test's process group spares it): when this
// process is gone and the server still runs, it stops the server and
// removes its directory. Without it a test binary killed by -timeout or
// Ctrl-C left servers running for hours, one of them busy on a core.
func (s *Server) watch() {
	data := filepath.Join(s.dir, "data")
	script := `while [ -d /proc/$0 ]; do sleep 1; done
[ -f "$2/postmaster.pid" ] || exit 0
"$1/pg_ctl" -D "$2" -m immediate -w stop >/dev/null 2>&1
case "$3" in */yagent-pgtest-*) rm -rf "$3" ;; esac`
	cmd := exec.Command("/bin/sh", "-c", script, strconv.Itoa(os.Getpid()), s.bin, data, s.dir)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: s.cred}
	if cmd.Start() == nil {
		go cmd.Wait() // reaped if it ends first (it does not, normally)
	}
}

func (s *Server) stop() {
	s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
	s.removeDir()
}

func (s *Server) removeDir() {
	if strings.Contains(s.dir, "yagent-pgtest-") {
		os.RemoveAll(s.dir)
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
