package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// The LSP wire structures talaria uses (the protocol's field names).
type (
	position struct {
		Line      int `json:"line"`
		Character int `json:"character"`
	}
	lspRange struct {
		Start position `json:"start"`
		End   position `json:"end"`
	}
	lspDiagnostic struct {
		Range    lspRange `json:"range"`
		Severity int      `json:"severity"`
		Source   string   `json:"source"`
		Message  string   `json:"message"`
	}
	publishParams struct {
		URI         string          `json:"uri"`
		Version     *int32          `json:"version"`
		Diagnostics []lspDiagnostic `json:"diagnostics"`
	}
)

// stderrCap bounds what is kept of a server's stderr (for the note when
// it fails).
const stderrCap = 8 << 10

// client is one running language server for one workspace root.
type client struct {
	cfg  ServerConfig
	root string
	cmd  *exec.Cmd
	conn jsonrpc2.Conn
	// untrack drops the server's process group from the reaper.
	untrack func()
	stderr  *capBuffer
	exited  chan struct{} // closed when the process has been waited for

	mu       sync.Mutex
	versions map[string]int32 // open documents: path → version sent
	diags    map[string]fileDiags
	changed  chan struct{} // closed and replaced on every publish
	seq      uint64
}

// fileDiags is what the server last published for one file.
type fileDiags struct {
	version    int32
	hasVersion bool
	seq        uint64
	items      []lspDiagnostic
}

// fileURI returns the file: URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// uriPath returns the path of a file: URI ("" for another scheme).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.Clean(filepath.FromSlash(u.Path))
}

// startClient runs the server for root and initializes it, within ctx.
func startClient(ctx context.Context, cfg ServerConfig, root string, opts *Options) (*client, error) {
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Dir = root
	cmd.Env = opts.Environ
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c := &client{cfg: cfg, root: root, cmd: cmd, stderr: &capBuffer{max: stderrCap}, exited: make(chan struct{}),
		versions: map[string]int32{}, diags: map[string]fileDiags{}, changed: make(chan struct{})}
	cmd.Stderr = c.stderr
	// Our own pipes, not StdinPipe/StdoutPipe: Wait (in its goroutine
	// below) must not close the read end while the connection reads it.
	inR, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdout, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		stdin.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, err
	}
	c.untrack = func() {}
	if opts.Track != nil {
		c.untrack = opts.Track(cmd.Process.Pid)
	}
	go func() {
		_ = cmd.Wait()
		c.untrack()
		close(c.exited)
	}()
	c.conn = jsonrpc2.NewConn(newCappedStream(pipeRWC{stdout, stdin}))
	c.conn.Go(context.Background(), c.handle)
	if err := c.initialize(ctx); err != nil {
		c.kill()
		return nil, fmt.Errorf("initialize: %w%s", err, c.stderrNote())
	}
	return c, nil
}

// initialize performs the initialize / initialized handshake.
func (c *client) initialize(ctx context.Context) error {
	rootURI := fileURI(c.root)
	params := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]any{"name": "talaria"},
		"rootUri":          rootURI,
		"rootPath":         c.root,
		"workspaceFolders": []map[string]any{{"uri": rootURI, "name": filepath.Base(c.root)}},
		"capabilities": map[string]any{
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true},
				"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
			},
			"window": map[string]any{"workDoneProgress": false},
		},
	}
	var result json.RawMessage
	if _, err := c.conn.Call(ctx, "initialize", params, &result); err != nil {
		return err
	}
	return c.conn.Notify(ctx, "initialized", map[string]any{})
}

// handle answers the server's requests and takes its notifications.
func (c *client) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p publishParams
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			c.publish(p)
		}
		return nil
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		return reply(ctx, make([]any, len(p.Items)), nil)
	case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create":
		return reply(ctx, nil, nil)
	case "workspace/workspaceFolders":
		return reply(ctx, []map[string]any{{"uri": fileURI(c.root), "name": filepath.Base(c.root)}}, nil)
	}
	if _, isCall := req.(*jsonrpc2.Call); isCall {
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "talaria does not handle "+req.Method()))
	}
	return nil // other notifications (logs, progress) are not needed
}

// publish records diagnostics and wakes the waiters.
func (c *client) publish(p publishParams) {
	path := uriPath(p.URI)
	if path == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	d := fileDiags{seq: c.seq, items: p.Diagnostics}
	if p.Version != nil {
		d.version, d.hasVersion = *p.Version, true
	}
	c.diags[path] = d
	close(c.changed)
	c.changed = make(chan struct{})
}

// sync sends the file's new content (didOpen the first time, then a full
// didChange, then didSave) and returns its version and the publish count
// before it was sent, what waitFor compares against.
func (c *client) sync(ctx context.Context, path string, text []byte) (version int32, since uint64, err error) {
	c.mu.Lock()
	v, open := c.versions[path]
	v++
	c.versions[path] = v
	since = c.seq
	c.mu.Unlock()
	uri := fileURI(path)
	if !open {
		err = c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": languageID(fileType(path)), "version": v, "text": string(text)}})
	} else {
		err = c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []map[string]any{{"text": string(text)}}})
	}
	if err == nil {
		err = c.conn.Notify(ctx, "textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
	return v, since, err
}

// waitFor waits until the server has published diagnostics for path at
// version (or, from a server that does not send versions, any after
// since), the server is gone, or ctx ends. ok is false when none came.
func (c *client) waitFor(ctx context.Context, path string, version int32, since uint64) (items []lspDiagnostic, ok bool) {
	for {
		c.mu.Lock()
		d, have := c.diags[path]
		ch := c.changed
		c.mu.Unlock()
		if have && ((d.hasVersion && d.version >= version) || (!d.hasVersion && d.seq > since)) {
			return d.items, true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, false
		case <-c.conn.Done():
			return nil, false
		}
	}
}

// current returns the last published diagnostics, by path.
func (c *client) current() map[string][]lspDiagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string][]lspDiagnostic, len(c.diags))
	for p, d := range c.diags {
		if len(d.items) > 0 {
			out[p] = d.items
		}
	}
	return out
}

// alive reports whether the server still runs.
func (c *client) alive() bool {
	select {
	case <-c.conn.Done():
		return false
	case <-c.exited:
		return false
	default:
		return true
	}
}

// exitedWithin reports whether the server's process ends within d (or
// has ended): a write that failed on its pipe means it is going, and its
// exit may be a moment behind.
func (c *client) exitedWithin(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.exited:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// close asks the server to shut down and exit, within grace, then kills
// its process group.
func (c *client) close(grace time.Duration) {
	if c.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		if _, err := c.conn.Call(ctx, "shutdown", nil, nil); err == nil {
			_ = c.conn.Notify(ctx, "exit", nil)
		}
		cancel()
		_ = c.conn.Close()
		select {
		case <-c.exited:
		case <-time.After(grace):
		}
	}
	c.kill()
}

// kill ends the server's process group and waits for the process.
func (c *client) kill() {
	if c.conn != nil {
		_ = c.conn.Close()
	}
	select {
	case <-c.exited:
		return
	default:
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.exited
}

// stderrNote is the server's last stderr output, for an error message.
func (c *client) stderrNote() string {
	s := bytes.TrimSpace(c.stderr.Bytes())
	if len(s) == 0 {
		return ""
	}
	if len(s) > 500 {
		s = s[len(s)-500:]
	}
	return " (stderr: " + string(s) + ")"
}

// pipeRWC joins a server's stdout and stdin into one stream.
type pipeRWC struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error {
	return errors.Join(p.w.Close(), p.r.Close())
}

// capBuffer keeps the last max bytes written to it.
type capBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write implements io.Writer.
func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

// Bytes returns a copy of what is kept.
func (b *capBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}
