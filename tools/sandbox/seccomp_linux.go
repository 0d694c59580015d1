//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"slices"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
)

// SocketErrno is the error a sandboxed command gets when it asks for a new
// Unix-domain socket: EAFNOSUPPORT ("Address family not supported by
// protocol"). Nothing else in the sandbox fails that way — the refusals of
// Landlock and of the read-only mounts read "Permission denied", "Operation
// not permitted" or "Read-only file system" — so [Sandbox.StoppedHint] can
// tell a refused socket from a refused write, and programs take it for
// what it is: this kind of socket is not available here (glibc's nscd and
// syslog clients fall back quietly).
const SocketErrno = syscall.EAFNOSUPPORT

// Values of the socket calls' arguments the filter compares (Linux UAPI,
// the same on every architecture).
const (
	afUnix        = 1   // AF_UNIX (AF_LOCAL)
	sockDgram     = 2   // SOCK_DGRAM
	sockTypeMask  = 0xf // SOCK_TYPE_MASK: the type without SOCK_NONBLOCK/SOCK_CLOEXEC
	sysSocketCall = 1   // SYS_SOCKET, socketcall's first argument for socket()
)

// low32Is matches argument arg whose low 32 bits equal v, whatever its high
// bits: the kernel reads the socket calls' arguments as C ints, so a caller
// may set the high half to slip past a 64-bit comparison. Two bit tests
// say it: every bit of v is set, and no other bit of the low half is.
func low32Is(arg uint32, v uint32) seccomp.ArgumentConditions {
	return maskedIs(arg, 0xffffffff, v)
}

// maskedIs matches argument arg whose bits under mask equal v (v within
// mask): the bits of v are set and the other bits of mask are clear.
// BitsSet matches when any bit of its value is set, so each bit of v gets
// a condition of its own.
func maskedIs(arg, mask, v uint32) seccomp.ArgumentConditions {
	var out seccomp.ArgumentConditions
	for bit := uint32(1); bit != 0 && bit <= v; bit <<= 1 {
		if v&bit != 0 {
			out = append(out, seccomp.Condition{Argument: arg, Operation: seccomp.BitsSet, Value: uint64(bit)})
		}
	}
	return append(out, seccomp.Condition{Argument: arg, Operation: seccomp.BitsNotSet, Value: uint64(mask &^ v)})
}

// socketFilters are the seccomp filters that refuse new Unix-domain
// sockets with [SocketErrno]:
//
//   - socket(AF_UNIX, …), whatever the type: a new socket could connect to
//     any pathname socket the user's services listen on (tmux, ssh-agent,
//     D-Bus, docker), and Landlock does not restrict that connect;
//   - socketpair(AF_UNIX, SOCK_DGRAM, …): a datagram socket of a pair can
//     still send to any named datagram socket (sendto with an address).
//     Stream and seqpacket pairs are connected for good and stay usable,
//     as do descriptors the command inherited;
//   - on architectures that have socketcall (i386), socketcall(SYS_SOCKET,
//     …) for every family, since a filter cannot read the argument array
//     socketcall points to; the direct socket() there is filtered by
//     family like everywhere.
//
// io_uring_setup, io_uring_enter and io_uring_register fail with ENOSYS
// (programs fall back to ordinary system calls): io_uring creates and
// connects sockets (IORING_OP_SOCKET) without a system call a filter
// could see.
//
// Where the kernel also runs programs of another ABI — i386 (int 0x80) on
// amd64, AArch32 on arm64 — whose calls a filter of the native calls lets
// through unexamined (the library sends another ABI to the default
// action), one more filter allows every system call of the native table
// by name and ends the process (SIGSYS, "Bad system call") on anything
// else: the other ABI's calls, and native calls newer than the library's
// table (Linux 6.15 for go-seccomp-bpf v1.6.0). x32 calls on amd64 fail
// with ENOSYS (the library's own rule).
//
// Each rule with argument conditions comes last in a filter of its own:
// the library's argument checks load the argument into the accumulator
// that later comparisons take for the system call number, so a rule
// after one with conditions would compare the wrong value. The kernel
// runs every filter and takes the strictest answer.
func socketFilters() ([]seccomp.Filter, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	refuse := seccomp.Action(uint32(seccomp.ActionErrno) | uint32(SocketErrno))
	enosys := seccomp.Action(uint32(seccomp.ActionErrno) | uint32(syscall.ENOSYS))
	filter := func(def seccomp.Action, groups ...seccomp.SyscallGroup) seccomp.Filter {
		return seccomp.Filter{
			NoNewPrivs: true,
			// Every thread of the helper, not only the one that
			// executes the command (that one would be enough: exec
			// leaves only it).
			Flag:   seccomp.FilterFlagTSync,
			Policy: seccomp.Policy{DefaultAction: def, Syscalls: groups},
		}
	}
	conditional := func(name string, c seccomp.ArgumentConditions) seccomp.SyscallGroup {
		return seccomp.SyscallGroup{Action: refuse, NamesWithCondtions: []seccomp.NameWithConditions{{Name: name, Conditions: c}}}
	}
	out := []seccomp.Filter{
		filter(seccomp.ActionAllow,
			seccomp.SyscallGroup{Action: enosys, Names: []string{"io_uring_setup", "io_uring_enter", "io_uring_register"}},
			conditional("socket", low32Is(0, afUnix))),
		filter(seccomp.ActionAllow,
			conditional("socketpair", append(low32Is(0, afUnix), maskedIs(1, sockTypeMask, sockDgram)...))),
	}
	if _, ok := info.SyscallNames["socketcall"]; ok {
		out = append(out, filter(seccomp.ActionAllow, conditional("socketcall", low32Is(0, sysSocketCall))))
	}
	if hasCompatABI(runtime.GOARCH) {
		names := make([]string, 0, len(info.SyscallNames))
		for n := range info.SyscallNames {
			names = append(names, n)
		}
		slices.Sort(names)
		out = append(out, filter(seccomp.ActionKillProcess, seccomp.SyscallGroup{Action: seccomp.ActionAllow, Names: names}))
	}
	return out, nil
}

// hasCompatABI reports whether a Linux kernel for goarch also runs programs
// of a second, 32-bit ABI whose system calls the native filter cannot name.
func hasCompatABI(goarch string) bool {
	return goarch == "amd64" || goarch == "arm64"
}

// refuseUnixSockets installs socketFilters on the calling process (all
// its threads); it, and every process it executes or starts, keeps them.
func refuseUnixSockets() error {
	if !seccomp.Supported() {
		return fmt.Errorf("seccomp is unavailable on this kernel")
	}
	fs, err := socketFilters()
	if err != nil {
		return err
	}
	for _, f := range fs {
		if err := seccomp.LoadFilter(f); err != nil {
			return err
		}
	}
	return nil
}
