package loop

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// wireServerEnv makes the loop test binary a chat-completions server that
// answers wireAnswer, for BenchmarkCallOutOfProcess.
const wireServerEnv = "TALARIA_LOOP_BENCH_WIRE_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(wireServerEnv) == "1" {
		os.Exit(serveWire())
	}
	os.Exit(m.Run())
}

// serveWire listens on loopback, prints its address, and serves until its
// stdin closes (the benchmark ended, or died).
func serveWire() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(ln.Addr().String())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, wireAnswer)
	}))
	return 1
}

// BenchmarkCallOutOfProcess is BenchmarkCallThroughWire with the server in
// another process: the CPU reported is talaria's alone (the loop, the
// wire's encoding, the HTTP client and its writes to the socket), as with a
// real provider, while the server's reading of the body is not counted.
func BenchmarkCallOutOfProcess(b *testing.B) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), wireServerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}()
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case a := <-addr:
		if a == "" {
			b.Fatal("the server process printed no address")
		}
		benchCalls(b, "http://"+a, &http.Client{})
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		b.Fatal("the server process did not start in 30 s")
	}
}
