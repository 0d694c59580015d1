//go:build unix

package loop

import "syscall"

// processCPU is the CPU time (user + system, all threads) this process
// has used, in nanoseconds; 0 when it cannot be read.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
