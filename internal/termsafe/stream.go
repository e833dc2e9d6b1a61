package termsafe

import (
	"io"
	"unicode/utf8"
)

// Stream renders text that arrives in pieces (a streamed answer, a file
// read in chunks) as Text renders the whole: a rune split between two
// pieces, or a joiner whose next rune is still to come, is held until the
// next piece or End. The zero value is ready; it reuses its buffers, so a
// long copy allocates nothing per piece.
type Stream struct {
	held []byte // the end of the last piece, not rendered yet
	work []byte // held and the new piece
	out  []byte // what next rendered
	prev rune   // the last rune rendered
}

// Next renders what of p (after what was held) can be rendered now.
func (st *Stream) Next(p string) string { return string(st.next([]byte(p))) }

// End renders what was held (nothing follows it) and starts afresh.
func (st *Stream) End() string {
	st.out, _ = appendRendered(st.out[:0], st.held, true, st.prev)
	st.held, st.prev = st.held[:0], 0
	return string(st.out)
}

// next renders what of p can be rendered now, into a buffer valid until
// the next call.
func (st *Stream) next(p []byte) []byte {
	buf := p
	if len(st.held) > 0 {
		st.work = append(append(st.work[:0], st.held...), p...)
		buf = st.work
	}
	cut := len(buf)
	// An incomplete rune at the end waits for its other bytes.
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	// A joiner waits for the rune after it.
	if r, size := utf8.DecodeLastRune(buf[:cut]); joiner(r) {
		cut -= size
	}
	st.out, st.prev = appendRendered(st.out[:0], buf[:cut], true, st.prev)
	st.held = append(st.held[:0], buf[cut:]...)
	return st.out
}

// Copy copies src to dst rendered as Text, in pieces (for text too large
// to hold whole); it returns the bytes written.
func Copy(dst io.Writer, src io.Reader) (int64, error) {
	var (
		st      Stream
		written int64
		buf     = make([]byte, 32<<10)
	)
	write := func(b []byte) error {
		n, err := dst.Write(b)
		written += int64(n)
		return err
	}
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if werr := write(st.next(buf[:n])); werr != nil {
				return written, werr
			}
		}
		if err == io.EOF {
			return written, write([]byte(st.End()))
		}
		if err != nil {
			return written, err
		}
	}
}
