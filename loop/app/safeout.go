package app

import (
	"io"
	"os"

	"talaria/tools/termsafe"
)

// SafeWriter returns w with every write passed through termsafe.String,
// for headless stderr: progress lines, notices and error text carry tool
// names, tool arguments and provider messages, any of which may hold
// escape sequences (OSC 52 clipboard writes, title changes). Each write
// must be whole lines, as fmt.Fprintln makes.
func SafeWriter(w io.Writer) io.Writer { return safeWriter{w} }

type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	if !termsafe.Needed(string(p)) {
		return s.w.Write(p)
	}
	if _, err := io.WriteString(s.w, termsafe.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// answerText is the final answer as printed on w: sanitised when w is a
// terminal (escapes there act on the user's screen), byte-exact for a
// pipe or a file.
func answerText(w io.Writer, s string) string {
	if isTerminal(w) {
		return termsafe.String(s)
	}
	return s
}

// isTerminal reports whether w is a character device (a terminal; also
// /dev/null, where sanitising changes nothing anyone sees).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
