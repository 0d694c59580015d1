//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// probeArg makes the test binary act as a small client run inside the
// sandbox (see probeMain), so that the socket tests need no python or
// socat.
const probeArg = "__talaria_sandbox_probe"

// probeWait bounds every wait of a probe.
const probeWait = 10 * time.Second

// probeMain runs one probe, prints what happened and exits 0 when the
// probed thing worked:
//
//	dial PATH        connect to the stream socket PATH, print its first line
//	raw-dial PATH    the same through socket(2) called with AF_UNIX in the
//	                 low half of a 64-bit domain (the kernel reads an int)
//	dgram-pair PATH  socketpair(AF_UNIX, SOCK_DGRAM), then sendto PATH
//	pairs            a stream and a seqpacket socketpair carry a message
//	uring            io_uring_setup
//	other-sockets    sockets of other families (inet, netlink) can be made
func probeMain(args []string) int {
	if len(args) == 0 {
		fmt.Println("probe: no probe named")
		return 2
	}
	var err error
	switch args[0] {
	case "dial":
		err = dialLine(args[1], func() (net.Conn, error) { return net.DialTimeout("unix", args[1], probeWait) })
	case "raw-dial":
		err = dialLine(args[1], func() (net.Conn, error) { return rawDial(args[1]) })
	case "dgram-pair":
		err = dgramPair(args[1])
	case "pairs":
		err = pairs()
	case "other-sockets":
		err = otherSockets()
	case "uring":
		var params [120]byte                                                          // struct io_uring_params
		_, _, e := syscall.RawSyscall(425, 4, uintptr(unsafe.Pointer(&params[0])), 0) // SYS_io_uring_setup on amd64 and arm64
		if e != 0 {
			err = e
		}
	default:
		err = fmt.Errorf("unknown probe %q", args[0])
	}
	if err != nil {
		fmt.Println("probe failed:", err)
		return 1
	}
	fmt.Println("probe ok")
	return 0
}

// dialLine connects with dial and prints the first line the server sends.
func dialLine(path string, dial func() (net.Conn, error)) error {
	c, err := dial()
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(probeWait))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	fmt.Printf("got %q from %s\n", line, path)
	return nil
}

// rawDial makes the socket with the domain's high half set: a filter that
// compares all 64 bits would let it through, the kernel would make an
// AF_UNIX socket.
func rawDial(path string) (net.Conn, error) {
	fd, _, e := syscall.RawSyscall(syscall.SYS_SOCKET, uintptr(1<<32|syscall.AF_UNIX), syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if e != 0 {
		return nil, e
	}
	if err := syscall.Connect(int(fd), &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(int(fd))
		return nil, err
	}
	f := os.NewFile(fd, "raw")
	defer f.Close()
	return net.FileConn(f)
}

// dgramPair sends a datagram to path from one socket of a datagram pair.
func dgramPair(path string) error {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	return syscall.Sendto(fds[0], []byte("escaped\n"), 0, &syscall.SockaddrUnix{Name: path})
}

// pairs checks that stream and seqpacket pairs carry a message.
func pairs() error {
	for _, typ := range []int{syscall.SOCK_STREAM, syscall.SOCK_SEQPACKET} {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, typ|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("socketpair type %d: %w", typ, err)
		}
		_, err = syscall.Write(fds[0], []byte("ping"))
		buf := make([]byte, 8)
		n := 0
		if err == nil {
			n, err = syscall.Read(fds[1], buf)
		}
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		if err != nil || string(buf[:n]) != "ping" {
			return errors.Join(fmt.Errorf("socketpair type %d carried %q", typ, buf[:n]), err)
		}
	}
	return nil
}

// otherSockets makes a socket of each family the filter leaves alone.
func otherSockets() error {
	for _, f := range [][3]int{
		{syscall.AF_INET, syscall.SOCK_STREAM, 0},
		{syscall.AF_INET, syscall.SOCK_DGRAM, 0},
		{syscall.AF_NETLINK, syscall.SOCK_RAW, syscall.NETLINK_ROUTE},
	} {
		fd, err := syscall.Socket(f[0], f[1]|syscall.SOCK_CLOEXEC, f[2])
		if err != nil {
			return fmt.Errorf("socket(%d, %d, %d): %w", f[0], f[1], f[2], err)
		}
		syscall.Close(fd)
	}
	return nil
}
