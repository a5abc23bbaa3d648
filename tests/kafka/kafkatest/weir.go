package kafkatest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/testenv"
)

// Options configure a weir server started by StartWeir.
type Options struct {
	// DataDir is weir's data directory; empty means a fresh temporary
	// one. The embedded broker keeps its data in DataDir/kafka.
	DataDir string
	// Args are extra arguments of `weir serve`.
	Args []string
	// Env holds extra KEY=VALUE environment entries, such as
	// "WEIR_FAULT=sink.after_precommit:2".
	Env []string
	// Broker, when set, is an external broker (StartBroker) that weir's
	// connectors are meant to use; weir then runs without
	// --embedded-kafka and KafkaAddr is the broker's address.
	Broker *Broker
}

// Weir is a weir server started by StartWeir: a testenv.Server (Stop,
// Kill, Restart, SetEnv, WaitExit, ConnString...) with a Kafka broker at
// KafkaAddr, its own embedded one unless Options.Broker was set.
type Weir struct {
	*testenv.Server
	// KafkaAddr is the bootstrap host:port of the broker; it stays the
	// same across restarts.
	KafkaAddr string
	// Embedded reports whether the broker runs inside weir (and so dies
	// with it).
	Embedded bool

	kafkaArgs []string
}

// StartWeir starts `weir serve` on free ports with a data directory and,
// unless opts.Broker is set, `--embedded-kafka 127.0.0.1:<free port>`,
// and waits until it accepts PostgreSQL connections (the embedded broker
// starts before that). Everything is killed when the test ends.
func StartWeir(t testing.TB, opts Options) *Weir {
	t.Helper()
	w := &Weir{}
	if opts.Broker != nil {
		w.KafkaAddr = opts.Broker.Addr
	} else {
		port, err := testenv.FreePort()
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		w.KafkaAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		w.Embedded = true
		w.kafkaArgs = []string{"--embedded-kafka", w.KafkaAddr}
	}
	w.Server = testenv.Start(t, testenv.Options{
		DataDir: opts.DataDir,
		Args:    append(append([]string(nil), w.kafkaArgs...), opts.Args...),
		Env:     opts.Env,
	})
	return w
}

// SetArgs replaces the extra `weir serve` arguments for the next starts,
// keeping --embedded-kafka.
func (w *Weir) SetArgs(args ...string) {
	w.Server.SetArgs(append(append([]string(nil), w.kafkaArgs...), args...)...)
}

// KafkaDataDir returns the embedded broker's data directory.
func (w *Weir) KafkaDataDir() string { return filepath.Join(w.DataDir, "kafka") }

// Broker is a standalone broker process, `weir kafka`, started by
// StartBroker. It listens on 127.0.0.1 on a port that stays the same
// across restarts, keeps its data in DataDir (every write fsynced) and
// is killed when the test ends.
type Broker struct {
	t testing.TB
	// Addr is the bootstrap host:port.
	Addr string
	// DataDir holds the broker's topics, offsets and transactions.
	DataDir string
	// LogPath receives the process's stdout and stderr.
	LogPath string

	bin  string
	args []string
	proc *testenv.Process
}

// StartBroker starts `weir kafka --listen 127.0.0.1:<free port>
// --data-dir <dataDir>` (a fresh temporary directory when dataDir is
// empty) with the extra args, and waits for the line saying it listens.
func StartBroker(t testing.TB, dataDir string, args ...string) *Broker {
	t.Helper()
	if dataDir == "" {
		dataDir = filepath.Join(t.TempDir(), "kafka")
	}
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	b := &Broker{
		t:       t,
		Addr:    net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		DataDir: dataDir,
		LogPath: filepath.Join(t.TempDir(), "kafka.log"),
		bin:     testenv.Binary(t),
		args:    args,
	}
	b.start()
	return b
}

// readyLine is what `weir kafka` prints once it accepts connections.
const readyLine = "weir kafka: broker listening on "

func (b *Broker) start() {
	b.t.Helper()
	before := countInFile(b.LogPath, readyLine)
	args := append([]string{"kafka", "--listen", b.Addr, "--data-dir", b.DataDir}, b.args...)
	b.proc = testenv.StartProcess(b.t, exec.Command(b.bin, args...), b.LogPath)
	deadline := time.Now().Add(30 * time.Second)
	for countInFile(b.LogPath, readyLine) == before {
		if b.proc.Exited() || time.Now().After(deadline) {
			b.t.Fatalf("weir kafka did not start listening on %s\nlog:\n%s", b.Addr, b.proc.Tail(3000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func countInFile(path, s string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), s)
}

// Stop sends SIGTERM and waits for a clean exit; the test fails if that
// takes more than 30 seconds.
func (b *Broker) Stop() {
	b.t.Helper()
	if b.proc == nil {
		return
	}
	if err := b.proc.Stop(syscall.SIGTERM, 30*time.Second); err != nil {
		b.t.Errorf("stopping weir kafka: %v", err)
	}
	b.proc = nil
}

// Kill sends SIGKILL and waits for the process to exit.
func (b *Broker) Kill() {
	if b.proc != nil {
		b.proc.Kill()
		b.proc = nil
	}
}

// Restart stops the broker cleanly if it runs and starts it again on the
// same port and data directory.
func (b *Broker) Restart() {
	b.t.Helper()
	b.Stop()
	b.start()
}

// Pid returns the process id of the running broker, or 0.
func (b *Broker) Pid() int {
	if b.proc == nil {
		return 0
	}
	return b.proc.Pid()
}

func (b *Broker) String() string { return fmt.Sprintf("weir kafka at %s (data %s)", b.Addr, b.DataDir) }
