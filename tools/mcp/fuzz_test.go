package mcp

import (
	"bufio"
	"bytes"
	"testing"
)

// FuzzStdoutLines feeds arbitrary server output to the stdio reader: it
// never panics, every message it yields re-encodes, and a line is either
// passed on or reported as stray, never both.
func FuzzStdoutLines(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		"banner\n" + `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}` + "\n",
		`[{"jsonrpc":"2.0","method":"a"}]` + "\r\n",
		"[]\n{}\n[\n{\n",
		"\x00\xff\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		br := bufio.NewReader(bytes.NewReader(data))
		for {
			line, err := readLine(br)
			if len(bytes.TrimSpace(line)) > 0 {
				strays := 0
				c := &stdioConn{stray: func(string) { strays++ }}
				msgs := c.decode(line)
				if (len(msgs) > 0) == (strays > 0) {
					t.Fatalf("line %q: %d messages, %d strays", line, len(msgs), strays)
				}
			}
			if err != nil {
				return
			}
		}
	})
}
