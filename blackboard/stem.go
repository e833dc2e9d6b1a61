package blackboard

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"
)

// noteRandom returns the 4-hex-digit random tag of this process. A test pins
// it to a constant to prove that uniqueness comes from the counter.
var noteRandom = randomHex4

func randomHex4() string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// IsNoteStem reports whether s has the shape of a note stem, the only shape
// index, list and GC accept as a note:
// ^[0-9]{8}T[0-9]{6}Z_[0-9a-f]{4}-[0-9]+-[0-9]{6,}$ (hand-written: it runs
// on every directory entry of every board scan; FuzzIsNoteStem checks it
// against that expression).
func IsNoteStem(s string) bool {
	const head = len("20060102T150405Z_abcd-")
	if len(s) < head+1+1+6 {
		return false
	}
	for i := range head {
		c := s[i]
		var ok bool
		switch {
		case i < 8 || i > 8 && i < 15:
			ok = isDigit(c)
		case i == 8:
			ok = c == 'T'
		case i == 15:
			ok = c == 'Z'
		case i == 16:
			ok = c == '_'
		case i < 21:
			ok = isDigit(c) || c >= 'a' && c <= 'f'
		default:
			ok = c == '-'
		}
		if !ok {
			return false
		}
	}
	pid, seq, found := strings.Cut(s[head:], "-")
	return found && len(pid) > 0 && allDigits(pid) && len(seq) >= 6 && allDigits(seq)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	for i := range len(s) {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// isNoteFile reports whether a directory entry name is a note file. Temp
// files (".<name><digits>") and anything else are rejected.
func isNoteFile(name string) bool {
	return len(name) > 3 && name[len(name)-3:] == ".md" && IsNoteStem(name[:len(name)-3])
}

// namer generates note stems "20060102T150405Z_<rand4>-<pid>-<seq6>".
//
// Uniqueness is by construction: the zero-padded, monotonic in-process
// counter separates names of one process, the pid separates processes, and
// the random tag (drawn once per process) only covers pid reuse within the
// same second. With the tag fixed per process, lexicographic order of one
// process's names is also their time order.
type namer struct {
	once sync.Once
	tag  string
	pid  int

	mu  sync.Mutex
	seq uint64

	// draw returns a random number in [0, n) (nil: math/rand/v2's
	// Uint64N): the stretch skip moves the counter on. A test pins it.
	draw func(n uint64) uint64
}

// skipSpan bounds the random stretch of skip: 1 to skipSpan names.
const skipSpan = 1024

var defaultNamer namer

func (n *namer) next(now time.Time) string {
	n.once.Do(func() {
		n.tag = noteRandom()
		n.pid = os.Getpid()
	})
	n.mu.Lock()
	n.seq++
	seq := n.seq
	n.mu.Unlock()
	return fmt.Sprintf("%s_%s-%d-%06d", now.UTC().Format("20060102T150405Z"), n.tag, n.pid, seq)
}

// skip moves the counter on by a random stretch after a name turned out
// to be taken: another process with the same tag and pid (two hosts on a
// shared notes root) draws the same numbers, and both stepping by one
// would collide again and again in lockstep. Names stay in creation order.
func (n *namer) skip() {
	draw := n.draw
	if draw == nil {
		draw = mrand.Uint64N
	}
	n.mu.Lock()
	n.seq += 1 + draw(skipSpan)
	n.mu.Unlock()
}

// stemTime parses the timestamp at the start of a stem.
func stemTime(stem string) (time.Time, bool) {
	if len(stem) < 16 {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102T150405Z", stem[:16])
	return t, err == nil
}
