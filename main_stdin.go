package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"talaria/loop"
)

// pipedWait is how long -p PROMPT waits for the first byte of a piped
// stdin before going on without it: a CI runner may hand talaria a pipe
// it never writes to nor closes, and that must not hang the run.
const pipedWait = 5 * time.Second

// pipedSource says what stdin is, for -p PROMPT.
type pipedSource int

const (
	pipedNone pipedSource = iota // a terminal, /dev/null, nothing to read
	pipedFile                    // a regular file: read it whole (bounded)
	pipedPipe                    // a pipe or socket: wait for a first byte
)

// stdinSource classifies stdin: only a pipe, a socket or a regular file is
// read; a terminal or another character device (/dev/null) is not. A
// reader that is not a file (tests) counts as a pipe.
func stdinSource(r io.Reader) pipedSource {
	if r == nil {
		return pipedNone
	}
	f, ok := r.(*os.File)
	if !ok {
		return pipedPipe
	}
	st, err := f.Stat()
	if err != nil {
		return pipedNone
	}
	switch m := st.Mode(); {
	case m.IsRegular():
		return pipedFile
	case m&(os.ModeNamedPipe|os.ModeSocket) != 0:
		return pipedPipe
	}
	return pipedNone
}

// readPiped reads what stdin carries for -p PROMPT, at most limit bytes
// (more is an error). From a pipe it waits up to wait for the first byte;
// none by then is "nothing piped" and a note says so (the read goes on in
// the background, unread: nothing else reads stdin in this mode).
func readPiped(r io.Reader, limit int, wait time.Duration) (data []byte, note string, err error) {
	src := stdinSource(r)
	if src == pipedNone {
		return nil, "", nil
	}
	type result struct {
		data []byte
		err  error
	}
	first := make(chan struct{})
	done := make(chan result, 1)
	go func() {
		var buf bytes.Buffer
		lr := io.LimitReader(r, int64(limit)+1)
		one := make([]byte, 1)
		n, err := io.ReadFull(lr, one)
		close(first)
		buf.Write(one[:n])
		if err == nil {
			_, err = buf.ReadFrom(lr)
		} else if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = nil
		}
		done <- result{buf.Bytes(), err}
	}()
	if src == pipedPipe {
		select {
		case <-first:
		case <-time.After(wait):
			return nil, fmt.Sprintf("nothing arrived on stdin in %s: going on without piped input (redirect `< /dev/null` to skip the wait, or pipe from a file)", wait), nil
		}
	}
	res := <-done
	if res.err != nil {
		return nil, "", fmt.Errorf("reading piped stdin: %w", res.err)
	}
	if len(res.data) > limit {
		return nil, "", fmt.Errorf("piped stdin is over the 4 MiB prompt cap (with the prompt); pass less, or a path the agent can read")
	}
	return res.data, "", nil
}

// checkText refuses binary piped input: a NUL byte or invalid UTF-8.
func checkText(data []byte) error {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Errorf("piped stdin is binary (a NUL byte at offset %d): only text is attached to the prompt; pipe text, or name the file in the prompt", i)
	}
	if !utf8.Valid(data) {
		bad := len(data)
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				bad = i
				break
			}
			i += n
		}
		return fmt.Errorf("piped stdin is not UTF-8 text (invalid byte at offset %d): only text is attached to the prompt", bad)
	}
	return nil
}

// attachPiped puts piped text after the prompt, marked as piped input.
func attachPiped(prompt string, data []byte) string {
	text := strings.TrimRight(string(data), "\n")
	return fmt.Sprintf("%s\n\n<piped_input source=\"stdin\" bytes=\"%d\">\n%s\n</piped_input>", prompt, len(data), text)
}

// headlessPrompt is the prompt of a -p run: -p - reads it from stdin;
// -p PROMPT takes piped stdin as context unless --stdin-commands makes
// stdin the command channel; --output-schema adds its instruction.
func headlessPrompt(o *options, stdin io.Reader) (prompt, note string, err error) {
	prompt = o.prompt
	switch {
	case prompt == "-":
		data, err := io.ReadAll(io.LimitReader(stdin, loop.MaxPromptBytes+1))
		if err != nil {
			return "", "", fmt.Errorf("reading the prompt from stdin: %w", err)
		}
		if len(data) > loop.MaxPromptBytes {
			return "", "", fmt.Errorf("-p -: %w", &loop.PromptTooLargeError{})
		}
		prompt = string(data)
	case !o.stdinCommands:
		data, n, err := readPiped(stdin, max(loop.MaxPromptBytes-len(prompt)-200, 0), pipedWait)
		if err != nil {
			return "", "", err
		}
		note = n
		if err := checkText(data); err != nil {
			return "", "", err
		}
		if strings.TrimSpace(string(data)) != "" {
			prompt = attachPiped(prompt, data)
		}
	}
	if strings.TrimSpace(o.prompt) == "" || strings.TrimSpace(prompt) == "" {
		return "", "", fmt.Errorf("-p: the prompt is empty")
	}
	if s := o.flags.Script.OutputSchema; s != nil {
		prompt += s.Instruction()
	}
	return prompt, note, nil
}
