//go:build unix

package fault

import "syscall"

// kill sends SIGKILL to this process. The signal cannot be caught, so
// nothing runs after it: no deferred calls, no buffered writes, no
// shutdown hooks.
func kill() {
	_ = syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
}
