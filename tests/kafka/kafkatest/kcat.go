package kafkatest

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// KcatTimeout bounds one kcat run; a run that takes longer fails the test.
const KcatTimeout = 2 * time.Minute

// Kcat returns the path of kcat, skipping the test when it is not
// installed (CI installs it).
func Kcat(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("kcat")
	if err != nil {
		t.Fatalf("kcat is not installed (%v); the Kafka end-to-end tests use it as the independent client (.ci/run installs it)", err)
	}
	return p
}

// RunKcat runs kcat with args, writing stdin to it, and returns its
// stdout. A non-zero exit or a run longer than KcatTimeout fails the
// test with kcat's stderr.
func RunKcat(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	out, err := runKcat(t, stdin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func runKcat(t testing.TB, stdin string, args ...string) (string, error) {
	t.Helper()
	path := Kcat(t)
	ctx, cancel := context.WithTimeout(context.Background(), KcatTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("kcat %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// Metadata returns `kcat -L` for the broker at addr: its brokers, topics
// and partitions.
func Metadata(t testing.TB, addr string) string {
	t.Helper()
	return RunKcat(t, "", "-L", "-b", addr)
}

// CreateTopic creates topic with the given number of partitions through a
// CreateTopics request (franz-go's kadm; kcat cannot create topics).
// The broker writes the new topic to its data directory before answering,
// so it survives a crash. Errors, including an existing topic, fail the
// test.
func CreateTopic(t testing.TB, addr, topic string, partitions int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatalf("kafka client: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := kadm.NewClient(cl).CreateTopic(ctx, int32(partitions), -1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("creating topic %s with %d partitions: %v", topic, partitions, err)
	}
}

// TopicExists reports whether the broker at addr knows topic.
func TopicExists(t testing.TB, addr, topic string) bool {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatalf("kafka client: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topics, err := kadm.NewClient(cl).ListTopics(ctx, topic)
	if err != nil {
		t.Fatalf("listing topic %s: %v", topic, err)
	}
	d, ok := topics[topic]
	if !ok || errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
		return false
	}
	if d.Err != nil {
		t.Fatalf("listing topic %s: %v", topic, d.Err)
	}
	return true
}

// Produce writes one record per value, without keys, to topic with
// `kcat -P` (automatic topic creation applies). Values must not contain
// a newline.
func Produce(t testing.TB, addr, topic string, values ...string) {
	t.Helper()
	var in strings.Builder
	for _, v := range values {
		if strings.Contains(v, "\n") {
			t.Fatalf("Produce: value %q contains a newline", v)
		}
		in.WriteString(v)
		in.WriteByte('\n')
	}
	RunKcat(t, in.String(), "-P", "-b", addr, "-t", topic)
}

// ProduceKeyed writes the records' keys and values to topic with `kcat -P
// -K:`; kcat's partitioner sends equal keys to the same partition.
// Partition, Offset and KeyNull are ignored; keys must not contain ':'
// and neither part a newline.
func ProduceKeyed(t testing.TB, addr, topic string, recs ...Record) {
	t.Helper()
	var in strings.Builder
	for _, r := range recs {
		if strings.ContainsAny(r.Key, ":\n") || strings.Contains(r.Value, "\n") {
			t.Fatalf("ProduceKeyed: record %q:%q has a ':' in the key or a newline", r.Key, r.Value)
		}
		in.WriteString(r.Key)
		in.WriteByte(':')
		in.WriteString(r.Value)
		in.WriteByte('\n')
	}
	RunKcat(t, in.String(), "-P", "-b", addr, "-t", topic, "-K:")
}

// Record is one Kafka record as a consumer sees it.
type Record struct {
	Partition int32
	Offset    int64
	Key       string
	// KeyNull is set when the record has no key (Key is then "").
	KeyNull bool
	Value   string
}

func (r Record) String() string {
	k := r.Key
	if r.KeyNull {
		k = "<null>"
	}
	return fmt.Sprintf("p%d@%d %s=%s", r.Partition, r.Offset, k, r.Value)
}

// consumeFormat makes kcat print a header line per record with the key's
// and value's lengths (-1 for null), then the raw bytes, so that any
// content parses back unambiguously.
const consumeFormat = "%p %o %K %S\n%k%s\n"

// Consume reads every record of every partition of topic at
// isolation.level=read_committed, from the beginning until the end of each
// partition (kcat -C -e), and returns them ordered by partition and
// offset. Records of aborted or still open transactions are not seen.
func Consume(t testing.TB, addr, topic string) []Record {
	t.Helper()
	return ConsumeIsolation(t, addr, topic, "read_committed")
}

// ConsumeIsolation is Consume at the given isolation level
// ("read_committed" or "read_uncommitted").
func ConsumeIsolation(t testing.TB, addr, topic, isolation string) []Record {
	t.Helper()
	out := RunKcat(t, "", "-C", "-b", addr, "-t", topic, "-o", "beginning", "-e", "-q",
		"-X", "isolation.level="+isolation, "-f", consumeFormat)
	recs, err := parseRecords(out)
	if err != nil {
		t.Fatalf("parsing kcat output of topic %s: %v", topic, err)
	}
	return recs
}

// parseRecords parses kcat output printed with consumeFormat.
func parseRecords(out string) ([]Record, error) {
	var recs []Record
	for len(out) > 0 {
		nl := strings.IndexByte(out, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("truncated header %q", out)
		}
		f := strings.Fields(out[:nl])
		out = out[nl+1:]
		if len(f) != 4 {
			return nil, fmt.Errorf("bad header %q", strings.Join(f, " "))
		}
		p, err1 := strconv.ParseInt(f[0], 10, 32)
		o, err2 := strconv.ParseInt(f[1], 10, 64)
		kl, err3 := strconv.Atoi(f[2])
		vl, err4 := strconv.Atoi(f[3])
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil, fmt.Errorf("bad header %q: %v", strings.Join(f, " "), err)
		}
		r := Record{Partition: int32(p), Offset: o, KeyNull: kl < 0}
		kl, vl = max(kl, 0), max(vl, 0)
		if len(out) < kl+vl+1 || out[kl+vl] != '\n' {
			return nil, fmt.Errorf("record at p%d@%d: body shorter than its lengths %d+%d", p, o, kl, vl)
		}
		r.Key, r.Value = out[:kl], out[kl:kl+vl]
		out = out[kl+vl+1:]
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b Record) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
	})
	return recs, nil
}

// Values returns the records' values, sorted.
func Values(recs []Record) []string {
	vals := make([]string, len(recs))
	for i, r := range recs {
		vals[i] = r.Value
	}
	slices.Sort(vals)
	return vals
}

// Duplicates returns each (key, value) pair that occurs more than once
// among recs, as "key\tvalue" ("<null>" for a null key), with its count;
// it is empty when every record is distinct.
func Duplicates(recs []Record) map[string]int {
	counts := make(map[string]int, len(recs))
	for _, r := range recs {
		k := r.Key
		if r.KeyNull {
			k = "<null>"
		}
		counts[k+"\t"+r.Value]++
	}
	dups := map[string]int{}
	for k, n := range counts {
		if n > 1 {
			dups[k] = n
		}
	}
	return dups
}
