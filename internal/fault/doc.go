// Package fault holds test-only crash points. Code on a path whose crash
// behaviour matters calls Hit with a point name; a test picks one point
// through the environment and the process kills itself with SIGKILL when
// execution reaches it, exactly as a power cut or an OOM kill would, with
// no deferred function, no flush and no clean shutdown.
//
// The environment variable WEIR_FAULT selects the point:
//
//	WEIR_FAULT=sink.after_precommit      # die at the first hit
//	WEIR_FAULT=sink.after_precommit:3    # die at the third hit (1-based)
//
// Before dying the process writes one line naming the point and the hit to
// stderr, so that a test can tell a fault-injected death from a real crash.
// The variable is read once, when the package is initialised; when it is
// unset Hit returns at once, so points cost nothing in production. A
// malformed value is reported on stderr and arms nothing.
//
// Two other kinds of point leave the process alive: an error point
// (Fail, fail.go) returns an error, and a hold point (Hold, hold.go)
// waits until the test creates a file, keeping a window such as a
// recovery's wait for its first barrier open for as long as the test
// needs.
//
// The points of the exactly-once sink protocol (DESIGN.md §5) are the
// constants below; a test sweeps them (and N) to check that no crash loses
// or duplicates a record seen by a read_committed consumer.
package fault
