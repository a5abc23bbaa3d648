package kafka

import (
	"bytes"
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// startBroker starts an in-memory embedded broker on a free loopback port
// and closes it when the test ends.
func startBroker(t testing.TB, opts BrokerOptions) *Broker {
	t.Helper()
	b, err := StartBroker(opts)
	if err != nil {
		t.Fatalf("StartBroker: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}

// kcatPath returns kcat's path; the tests use it as the independent
// reader, so its absence is a failure, not a skip.
func kcatPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("kcat")
	if err != nil {
		t.Fatalf("kcat is needed as the independent Kafka client: %v", err)
	}
	return p
}

// kcat runs kcat with args and stdin and returns its stdout.
func kcat(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kcatPath(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("kcat %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// consumeCommitted reads every record of topic with kcat at
// isolation.level=read_committed and returns the values, sorted (across
// partitions there is no order).
func consumeCommitted(t testing.TB, addr, topic string) []string {
	t.Helper()
	return consume(t, addr, topic, "read_committed")
}

func consume(t testing.TB, addr, topic, isolation string) []string {
	t.Helper()
	out := kcat(t, "", "-C", "-b", addr, "-t", topic, "-e", "-q",
		"-X", "isolation.level="+isolation, "-f", "%s\n")
	var vals []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" {
			vals = append(vals, l)
		}
	}
	slices.Sort(vals)
	return vals
}

// createTopic creates topic with n partitions through kgo's auto-create
// path being unsuitable for a chosen count.
func createTopic(t testing.TB, b *Broker, topic string, n int32) {
	t.Helper()
	if err := b.Cluster().CreateTopic(topic, n, nil); err != nil {
		t.Fatalf("CreateTopic %s: %v", topic, err)
	}
}

func newClient(t testing.TB, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func seq(prefix string, from, n int) []string {
	var s []string
	for i := from; i < from+n; i++ {
		s = append(s, prefix+"-"+itoa(i))
	}
	slices.Sort(s)
	return s
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
