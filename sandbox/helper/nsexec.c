//go:build cgo && linux && (amd64 || arm64 || riscv64)

// The C helper: the same steps as the Go helper (run_linux.go,
// view_linux.go, caps_linux.go, landlock_linux.go, seccomp_linux.go),
// taken in a constructor, before Go's runtime starts, as runc's nsexec
// does. A confined command then pays for the dynamic loader and these
// system calls, not for starting Go's runtime in a large binary and
// tearing its address space down at exec.
//
// In every other process the constructor returns after one strcmp. When
// argv[1] is the helper's marker it never returns: it execs the command or
// exits (126: could not confine, 127: command not found) with the Go
// helper's messages. It parses the same arguments as spec.go's Parse; the
// seccomp program is not built here but given by the parent (-bpf, built
// by seccomp_linux.go's filter), so both helpers load the same
// instructions.
//
// glibc passes argc, argv and envp to the main program's constructors;
// other C libraries do not, so elsewhere the constructor does nothing and
// the Go helper runs.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

int yagent_nsexec_active(void) {
#ifdef __GLIBC__
	return 1;
#else
	return 0;
#endif
}

#ifdef __GLIBC__

// System calls numbered alike on every 64-bit architecture (Linux 5.1+);
// the C library's headers may predate them.
#define NR_open_tree 428
#define NR_move_mount 429
#define NR_mount_setattr 442
#define NR_landlock_create_ruleset 444
#define NR_landlock_add_rule 445
#define NR_landlock_restrict_self 446

#define OPEN_TREE_CLONE_ 0x1
#define AT_RECURSIVE_ 0x8000
#define MOVE_MOUNT_F_EMPTY_PATH_ 0x4
#define MOUNT_ATTR_RDONLY_ 0x1

#define EXIT_CANNOT_CONFINE 126
#define EXIT_NOT_FOUND 127
#define MAX_FILTER 1024 // spec.go's maxFilter

static const char marker[] = "__yagent-sandbox-exec"; // spec.go's Arg

// ---- messages: "yagent sandbox: " + what + "\n" on stderr, as say() ----

static char msg[8192];
static size_t mlen;

static void m_add(const char *s) {
	while (s && *s && mlen < sizeof msg - 2)
		msg[mlen++] = *s++;
}

// m_err appends ": " and the error as Go words it (glibc's text with a
// lower-case first letter).
static void m_err(int e) {
	const char *s = strerror(e);
	m_add(": ");
	if (*s >= 'A' && *s <= 'Z' && mlen < sizeof msg - 2) {
		msg[mlen++] = (char)(*s - 'A' + 'a');
		s++;
	}
	m_add(s);
}

static void m_start(const char *prefix) {
	mlen = 0;
	m_add("yagent sandbox: ");
	m_add(prefix);
}

__attribute__((noreturn)) static void m_exit(int code) {
	msg[mlen++] = '\n';
	const char *p = msg;
	size_t n = mlen;
	while (n > 0) {
		ssize_t w = write(2, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		n -= (size_t)w;
	}
	_exit(code);
}

// stage is what every failure of the current step is prefixed with.
static const char *stage = "";

// fail: stage + a + b + c (+ ": " + strerror(e) when e != 0), exit 126.
__attribute__((noreturn)) static void fail(const char *a, const char *b, const char *c, int e) {
	m_start(stage);
	m_add(a);
	m_add(b);
	m_add(c);
	if (e)
		m_err(e);
	m_exit(EXIT_CANNOT_CONFINE);
}

static const char *itoa(long n, char buf[24]) {
	char *p = buf + 23;
	int neg = n < 0;
	unsigned long u = neg ? -(unsigned long)n : (unsigned long)n;
	*p = 0;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		*--p = '-';
	return p;
}

// ---- the spec (spec.go) ----

enum { VIEW = 1, LANDLOCK, PROBE };

enum { TMP = 1, RW, RWFILE, RO, HIDE, BIND };

struct op {
	int kind;
	const char *path, *at;
	int fd;       // the clone of path, -1 for none
	size_t skel;  // length of the first directory made for the mount point (0: none)
	int mask;     // a hidden directory's tmpfs
};

struct spec {
	int mech;
	int abi;
	const char *dir;
	struct op *ops;
	int nops;
	struct sock_filter filter[MAX_FILTER];
	int nfilter;
	char **argv;
};

static struct spec spec;

__attribute__((noreturn)) static void bad(const char *a, const char *b, const char *c) {
	m_start("bad helper arguments: ");
	m_add(a);
	m_add(b);
	m_add(c);
	m_exit(EXIT_CANNOT_CONFINE);
}

static int unhex(char c) {
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

// parse_filter decodes -bpf (toHex of Program: 8 bytes per instruction,
// little-endian fields).
static int parse_filter(const char *v) {
	size_t n = strlen(v);
	if (n == 0 || n % 16 != 0 || n / 16 > MAX_FILTER)
		return -1;
	uint8_t b[8];
	for (size_t i = 0; i < n / 16; i++) {
		for (int j = 0; j < 8; j++) {
			int hi = unhex(v[16 * i + 2 * j]), lo = unhex(v[16 * i + 2 * j + 1]);
			if (hi < 0 || lo < 0)
				return -1;
			b[j] = (uint8_t)(hi << 4 | lo);
		}
		spec.filter[i].code = (uint16_t)(b[0] | b[1] << 8);
		spec.filter[i].jt = b[2];
		spec.filter[i].jf = b[3];
		spec.filter[i].k = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
	}
	spec.nfilter = (int)(n / 16);
	return 0;
}

// parse is spec.go's Parse, with its messages.
static void parse(int argc, char **a) {
	spec.ops = malloc(sizeof(struct op) * (size_t)(argc + 1));
	if (!spec.ops)
		bad("out of memory", "", "");
	int i = 0;
	while (i < argc) {
		if (strcmp(a[i], "--") == 0) {
			spec.argv = a + i + 1;
			if (i + 1 >= argc && spec.mech != PROBE)
				bad("no command after --", "", "");
			if (!spec.mech)
				bad("no -m", "", "");
			return;
		}
		if (i + 1 >= argc)
			bad(a[i], " without a value", "");
		const char *flag = a[i], *v = a[i + 1];
		i += 2;
		if (strcmp(flag, "-m") == 0) {
			if (strcmp(v, "view") == 0)
				spec.mech = VIEW;
			else if (strcmp(v, "landlock") == 0)
				spec.mech = LANDLOCK;
			else if (strcmp(v, "probe") == 0)
				spec.mech = PROBE;
			else
				bad("-m \"", v, "\": want view, landlock or probe");
		} else if (strcmp(flag, "-abi") == 0) {
			size_t n = strlen(v);
			int x = 0;
			if (n == 0 || n > 9)
				bad("-abi \"", v, "\": want a number");
			for (size_t j = 0; j < n; j++) {
				if (v[j] < '0' || v[j] > '9')
					bad("-abi \"", v, "\": want a number");
				x = x * 10 + (v[j] - '0');
			}
			spec.abi = x;
		} else if (strcmp(flag, "-cd") == 0) {
			spec.dir = v;
		} else if (strcmp(flag, "-bpf") == 0) {
			if (parse_filter(v) < 0) {
				char nb[24];
				bad("-bpf: want the hex of 1 to ", itoa(MAX_FILTER, nb), " BPF instructions");
			}
		} else {
			int kind = 0;
			if (strcmp(flag, "-tmp") == 0)
				kind = TMP;
			else if (strcmp(flag, "-rw") == 0)
				kind = RW;
			else if (strcmp(flag, "-rwfile") == 0)
				kind = RWFILE;
			else if (strcmp(flag, "-ro") == 0)
				kind = RO;
			else if (strcmp(flag, "-hide") == 0)
				kind = HIDE;
			else if (strcmp(flag, "-bind") == 0)
				kind = BIND;
			else
				bad("unknown argument \"", flag, "\"");
			if (v[0] != '/') {
				m_start("bad helper arguments: ");
				m_add(flag);
				m_add(" \"");
				m_add(v);
				m_add("\": want an absolute path");
				m_exit(EXIT_CANNOT_CONFINE);
			}
			struct op *op = &spec.ops[spec.nops++];
			memset(op, 0, sizeof *op);
			op->kind = kind;
			op->path = v;
			op->fd = -1;
			if (kind == BIND) {
				if (i >= argc || a[i][0] != '/')
					bad("-bind \"", v, "\": want the absolute path it lands at");
				op->at = a[i++];
			}
		}
	}
	bad("no command (want -- ARGV)", "", "");
}

// ---- the view (view_linux.go) ----

static int clone_tree(const char *path, int recursive) {
	unsigned flags = OPEN_TREE_CLONE_ | O_CLOEXEC;
	if (recursive)
		flags |= AT_RECURSIVE_;
	return (int)syscall(NR_open_tree, AT_FDCWD, path, flags);
}

struct mount_attr_ {
	uint64_t set, clr, propagation, userns;
};

static int set_attr(int dirfd, const char *path, unsigned flags, uint64_t set) {
	struct mount_attr_ attr = {.set = set};
	return (int)syscall(NR_mount_setattr, dirfd, path, flags, &attr, sizeof attr);
}

// attach mounts a detached tree at path and closes its fd (errno kept).
static int attach(int fd, const char *path) {
	int r = (int)syscall(NR_move_mount, fd, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH_);
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

static int is_dir_fd(int fd) {
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

// parent_len is the length of parent(p[:n]) in view_linux.go: "/" (1) for
// "/x" and "/".
static size_t parent_len(const char *p, size_t n) {
	size_t i = n - 1;
	while (i > 0 && p[i] != '/')
		i--;
	return i == 0 ? 1 : i;
}

static char pbuf[PATH_MAX + 1];

// mkdir_all makes pbuf[:n] and its missing parents (mkdirAll); *made is
// the length of the first it made (0: none).
static int mkdir_all(size_t n, size_t *made) {
	struct stat st;
	char c = pbuf[n];
	pbuf[n] = 0;
	int exists = stat(pbuf, &st) == 0;
	pbuf[n] = c;
	if (exists) {
		*made = 0;
		return 0;
	}
	size_t m = 0, pn = parent_len(pbuf, n);
	if (pn != n && mkdir_all(pn, &m) < 0)
		return -1;
	c = pbuf[n];
	pbuf[n] = 0;
	int r = mkdir(pbuf, 0755);
	int e = errno;
	pbuf[n] = c;
	if (r < 0 && e != EEXIST) {
		errno = e;
		return -1;
	}
	*made = m ? m : n;
	return 0;
}

// mount_point is mountPoint: 0, or -1 with errno, or -2 when path is of
// the other kind.
static int mount_point(const char *path, int dir, size_t *made) {
	struct stat st;
	*made = 0;
	if (stat(path, &st) == 0)
		return (S_ISDIR(st.st_mode) != 0) != dir ? -2 : 0;
	size_t n = strlen(path);
	if (n > PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(pbuf, path, n + 1);
	size_t m = 0;
	if (mkdir_all(parent_len(pbuf, n), &m) < 0)
		return -1;
	*made = m ? m : n;
	if (dir) {
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -1;
		return 0;
	}
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	return close(fd);
}

// read_only_skeleton is readOnlySkeleton.
static int read_only_skeleton(const char *dir) {
	int fd = clone_tree(dir, 1);
	if (fd < 0)
		return -1;
	if (set_attr(fd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY_) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return attach(fd, dir);
}

static const char *devs[] = {"null", "zero", "full", "random", "urandom"};
#define NDEVS 5

// make_dev is makeDev.
static void make_dev(const int *clones) {
	char p[32];
	if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k") < 0)
		fail("/dev", "", "", errno);
	for (int i = 0; i < NDEVS; i++) {
		strcpy(p, "/dev/");
		strcat(p, devs[i]);
		int fd = open(p, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			fail("/dev: ", devs[i], "", errno);
		close(fd);
		if (attach(clones[i], p) < 0)
			fail("/dev: ", devs[i], "", errno);
	}
	static const char *links[][2] = {
	    {"/proc/self/fd", "/dev/fd"}, {"/proc/self/fd/0", "/dev/stdin"},
	    {"/proc/self/fd/1", "/dev/stdout"}, {"/proc/self/fd/2", "/dev/stderr"},
	    {"pts/ptmx", "/dev/ptmx"},
	};
	for (int i = 0; i < 5; i++)
		if (symlink(links[i][0], links[i][1]) < 0)
			fail("/dev: ", links[i][1], "", errno);
	if (mkdir("/dev/pts", 0755) < 0)
		fail("/dev: /dev/pts", "", "", errno);
	if (mkdir("/dev/shm", 0755) < 0)
		fail("/dev: /dev/shm", "", "", errno);
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620") < 0)
		fail("/dev: devpts", "", "", errno);
	if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
		fail("/dev: shm", "", "", errno);
	if (set_attr(AT_FDCWD, "/dev", 0, MOUNT_ATTR_RDONLY_) < 0)
		fail("/dev", "", "", errno);
}

// loopback_up is loopbackUp.
static void loopback_up(void) {
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fail("loopback", "", "", errno);
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		fail("loopback flags", "", "", errno);
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		fail("loopback up", "", "", errno);
	close(fd);
}

// build_view is buildView: the same steps in the same order.
static void build_view(void) {
	if (mount("", "/", "", MS_REC | MS_PRIVATE, "") < 0)
		fail("make the mounts private", "", "", errno);
	for (int i = 0; i < spec.nops; i++) {
		struct op *op = &spec.ops[i];
		if (op->kind != TMP && op->kind != RW && op->kind != RO && op->kind != BIND)
			continue;
		int fd = clone_tree(op->path, 1);
		if (fd < 0 && errno == ENOENT)
			continue; // gone since the spec was made: nothing to bind
		if (fd < 0)
			fail("clone ", op->path, "", errno);
		if (op->kind == RO && set_attr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE_, MOUNT_ATTR_RDONLY_) < 0)
			fail("make ", op->path, " read-only", errno);
		op->fd = fd;
	}
	int dev_clones[NDEVS];
	for (int i = 0; i < NDEVS; i++) {
		char p[32] = "/dev/";
		strcat(p, devs[i]);
		if ((dev_clones[i] = clone_tree(p, 0)) < 0)
			fail("clone ", p, "", errno);
	}
	if (set_attr(AT_FDCWD, "/", AT_RECURSIVE_, MOUNT_ATTR_RDONLY_) < 0)
		fail("make the root read-only", "", "", errno);
	for (int i = 0; i < spec.nops; i++) {
		struct op *op = &spec.ops[i];
		switch (op->kind) {
		case TMP:
			if (attach(op->fd, "/tmp") < 0)
				fail("bind the private temp dir at /tmp", "", "", errno);
			break;
		case RW:
		case RO:
		case BIND: {
			if (op->fd < 0)
				break;
			const char *at = op->kind == BIND ? op->at : op->path;
			size_t made;
			int r = mount_point(at, is_dir_fd(op->fd), &made);
			if (r == -2)
				fail("mount point ", at, ": is not of the kind it binds (a file over a directory, or the reverse)", 0);
			if (r < 0)
				fail("mount point ", at, "", errno);
			if (made && made != strlen(at))
				op->skel = made;
			if (attach(op->fd, at) < 0) {
				int e = errno;
				m_start(stage);
				m_add("bind ");
				m_add(op->path);
				m_add(" at ");
				m_add(at);
				m_err(e);
				m_exit(EXIT_CANNOT_CONFINE);
			}
			break;
		}
		case HIDE: {
			struct stat st;
			if (lstat(op->path, &st) < 0)
				break; // not in the view: nothing to hide
			if (S_ISDIR(st.st_mode)) {
				if (mount("tmpfs", op->path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k") < 0)
					fail("hide ", op->path, "", errno);
				op->mask = 1;
				break;
			}
			if (S_ISLNK(st.st_mode))
				break; // a link leads somewhere else, hidden or not on its own
			int fd = clone_tree("/dev/null", 0);
			if (fd < 0 || set_attr(fd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY_) < 0 || attach(fd, op->path) < 0)
				fail("hide ", op->path, "", errno);
			break;
		}
		}
	}
	for (int i = 0; i < spec.nops; i++) {
		struct op *op = &spec.ops[i];
		if (!op->skel)
			continue;
		const char *at = op->kind == BIND ? op->at : op->path;
		memcpy(pbuf, at, op->skel);
		pbuf[op->skel] = 0;
		if (read_only_skeleton(pbuf) < 0)
			fail("make ", pbuf, " read-only", errno);
	}
	make_dev(dev_clones);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "") < 0) {
		// No /proc rather than the host's (see view_linux.go).
		if (mount("tmpfs", "/proc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "mode=0555,size=4k") < 0)
			fail("mask /proc", "", "", errno);
	}
	for (int i = 0; i < spec.nops; i++)
		if (spec.ops[i].mask && set_attr(AT_FDCWD, spec.ops[i].path, 0, MOUNT_ATTR_RDONLY_) < 0)
			fail("make the mask on ", spec.ops[i].path, " read-only", errno);
	loopback_up();
}

// probe is view_linux.go's probe: a scratch view hiding /tmp, then a
// clone made read-only and attached there.
__attribute__((noreturn)) static void probe(void) {
	static struct op hide = {.kind = HIDE, .path = "/tmp", .fd = -1};
	spec.ops = &hide;
	spec.nops = 1;
	build_view();
	int fd = clone_tree("/proc", 0);
	if (fd < 0)
		fail("clone", "", "", errno);
	if (set_attr(fd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY_) < 0)
		fail("mount_setattr", "", "", errno);
	if (attach(fd, "/tmp") < 0)
		fail("move_mount", "", "", errno);
	_exit(0);
}

// ---- confining (caps_linux.go, landlock_linux.go, seccomp_linux.go) ----

// The securebits of caps_linux.go.
#define SECURE_BITS (1 << 0 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 5 | 1 << 6 | 1 << 7)

static void drop_capabilities(void) {
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		fail("drop capabilities: clear ambient", "", "", errno);
	for (long c = 0; c < 64; c++) {
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL || errno == EPERM)
			break; // past the last capability, or no CAP_SETPCAP
		int e = errno;
		char nb[24];
		fail("drop capabilities: drop capability ", itoa(c, nb), " from the bounding set", e);
	}
	if (prctl(PR_SET_SECUREBITS, SECURE_BITS, 0, 0, 0) < 0 && errno != EPERM)
		fail("drop capabilities: securebits", "", "", errno);
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &hdr, data) < 0)
		fail("drop capabilities: capset", "", "", errno);
}

// Landlock's rights (landlock_linux.go).
#define LL_READ_RIGHTS (1ull << 0 | 1ull << 2 | 1ull << 3)
#define LL_FILE_RIGHTS (1ull << 0 | 1ull << 1 | 1ull << 2 | 1ull << 14 | 1ull << 15)

static uint64_t fs_rights(int abi) {
	uint64_t r = (1ull << 13) - 1;
	if (abi >= 2)
		r |= 1ull << 13;
	if (abi >= 3)
		r |= 1ull << 14;
	if (abi >= 5)
		r |= 1ull << 15;
	if (abi >= 9)
		r |= 1ull << 16;
	return r;
}

struct __attribute__((packed)) path_beneath {
	uint64_t allowed;
	int32_t fd;
};

static void ll_add(int ruleset, const char *path, uint64_t rights, uint64_t handled) {
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return; // gone since the rules were made
	if (fd < 0)
		fail("landlock: ", path, "", errno);
	struct stat st;
	if (fstat(fd, &st) < 0)
		fail("landlock: ", path, "", errno);
	if (!S_ISDIR(st.st_mode))
		rights &= LL_FILE_RIGHTS;
	struct path_beneath rule = {.allowed = rights & handled, .fd = fd};
	if (syscall(NR_landlock_add_rule, ruleset, 1, &rule, 0) < 0)
		fail("landlock: rule for ", path, "", errno);
	close(fd);
}

// restrict_ is restrict, writablePaths included.
static void restrict_(void) {
	uint64_t handled = fs_rights(spec.abi);
	struct {
		uint64_t fs, net, scoped;
	} attr = {.fs = handled};
	size_t size = 8;
	if (spec.abi >= 4) {
		size = 16;
		if (spec.mech == LANDLOCK)
			attr.net = 1 << 0 | 1 << 1; // bind and connect TCP
	}
	if (spec.abi >= 6) {
		size = 24;
		attr.scoped = 1 << 0 | 1 << 1; // abstract Unix sockets, signals
	}
	int fd = (int)syscall(NR_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0) {
		int e = errno;
		char nb[24];
		fail("landlock: create a ruleset for ABI ", itoa(spec.abi, nb), "", e);
	}
	ll_add(fd, "/", LL_READ_RIGHTS, handled);
	ll_add(fd, "/dev/null", handled, handled);
	ll_add(fd, "/dev/zero", handled, handled);
	ll_add(fd, "/dev/full", handled, handled);
	for (int i = 0; i < spec.nops; i++) {
		struct op *op = &spec.ops[i];
		if (op->kind == TMP && spec.mech == VIEW)
			ll_add(fd, "/tmp", handled, handled);
		else if (op->kind == TMP || op->kind == RW || op->kind == RWFILE)
			ll_add(fd, op->path, handled, handled);
	}
	if (spec.mech == VIEW) {
		ll_add(fd, "/dev/pts", handled, handled);
		ll_add(fd, "/dev/shm", handled, handled);
	}
	if (syscall(NR_landlock_restrict_self, fd, 0) < 0)
		fail("landlock: restrict", "", "", errno);
	close(fd);
}

// confine is run_linux.go's confine.
static void confine(void) {
	stage = "could not confine the command, so it did not run: ";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail("no_new_privs", "", "", errno);
	drop_capabilities();
	if (spec.abi > 0)
		restrict_();
	if (spec.nfilter == 0)
		fail("seccomp: no program given (-bpf)", "", "", 0);
	struct sock_fprog prog = {.len = (unsigned short)spec.nfilter, .filter = spec.filter};
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		fail("seccomp", "", "", errno);
}

// look_path is lookPath: a name with a slash as it is, else the first
// executable regular file of that name in PATH (the last PATH= of the
// environment, an empty one the current directory; the usual
// directories without one).
static const char *look_path(const char *name, char **envp) {
	if (strchr(name, '/'))
		return name;
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	for (char **e = envp; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			path = *e + 5;
	size_t nlen = strlen(name);
	const char *dir = path;
	for (;;) {
		const char *end = strchr(dir, ':');
		size_t dlen = end ? (size_t)(end - dir) : strlen(dir);
		const char *d = dir;
		if (dlen == 0) {
			d = ".";
			dlen = 1;
		}
		if (dlen + 1 + nlen <= PATH_MAX) {
			memcpy(pbuf, d, dlen);
			pbuf[dlen] = '/';
			memcpy(pbuf + dlen + 1, name, nlen + 1);
			struct stat st;
			if (stat(pbuf, &st) == 0 && S_ISREG(st.st_mode) && access(pbuf, X_OK) == 0)
				return pbuf;
		}
		if (!end)
			return NULL;
		dir = end + 1;
	}
}

// run is run_linux.go's run.
__attribute__((noreturn)) static void run(int argc, char **argv, char **envp) {
	parse(argc, argv);
	if (spec.mech == PROBE)
		probe();
	if (spec.mech == VIEW) {
		stage = "could not build the sandbox's view of the filesystem, so the command did not run: ";
		build_view();
		stage = "";
	}
	if (spec.dir && *spec.dir && chdir(spec.dir) < 0)
		fail("enter ", spec.dir, "", errno);
	const char *path = look_path(spec.argv[0], envp);
	if (!path) {
		m_start(spec.argv[0]);
		m_add(": command not found");
		m_exit(EXIT_NOT_FOUND);
	}
	confine();
	execve(path, spec.argv, envp);
	int e = errno;
	stage = "";
	fail("exec ", spec.argv[0], "", e);
}

__attribute__((constructor)) static void yagent_nsexec(int argc, char **argv, char **envp) {
	if (argc < 2 || !argv || !argv[1] || strcmp(argv[1], marker) != 0)
		return;
	run(argc - 2, argv + 2, envp);
}

#endif
