package engine

import (
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// A broker address that answers with another protocol is reported as
// not being a Kafka broker, and nothing of its reply reaches the client.
func TestNotAKafkaBroker(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// Answer every request as a PostgreSQL server answers a stranger: an
	// ErrorResponse, whose first bytes a Kafka client reads as a huge
	// length.
	reply := "E\x00\x00\x00\x54SFATAL\x00C0A000\x00Munsupported frontend protocol 0.0: secret-banner-text\x00\x00"
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				c.Read(buf)
				io.WriteString(c, reply)
			}()
		}
	}()
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	notices := runNotices(t, s, "CREATE SOURCE odd (a int) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = '"+ln.Addr().String()+"') FORMAT PLAIN ENCODE JSON")
	want := "could not connect to the Kafka broker at " + ln.Addr().String() + ": the server there does not answer as a Kafka broker"
	if !slices.ContainsFunc(notices, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Fatalf("notices %q, want one starting %q", notices, want)
	}
	for _, n := range notices {
		if strings.Contains(n, "secret-banner") || strings.Contains(n, "1157627904") || strings.Contains(n, "size") {
			t.Fatalf("the notice repeats the reply: %q", n)
		}
	}
}

// AllowedConnectorHosts refuses sources and sinks that name another
// broker (42501), before any connection is made.
func TestAllowedConnectorHosts(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	e.cfg.AllowedConnectorHosts = []string{"kafka.internal", "127.0.0.1:9092"}
	s := session(t, e)
	for _, q := range []string{
		"CREATE SOURCE a (x int) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = '127.0.0.1:5432') FORMAT PLAIN ENCODE JSON",
		"CREATE SOURCE b (x int) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = 'kafka.internal:9092,10.0.0.1:9092') FORMAT PLAIN ENCODE JSON",
		"CREATE TABLE c (x int) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = 'evil:9092') FORMAT PLAIN ENCODE JSON",
	} {
		_, err := run(t, s, q)
		if pgerr.CodeOf(err) != pgerr.InsufficientPrivilege || !strings.Contains(err.Error(), "are not allowed") {
			t.Errorf("%s: %v, want 42501", q, err)
		}
	}
	if err := e.checkConnectorHosts([]string{"kafka.internal:19092", "127.0.0.1:9092"}); err != nil {
		t.Fatalf("allowed hosts refused: %v", err)
	}
}

// A reader's error keeps its text unless it is the Kafka client misreading
// another protocol's reply.
func TestReaderError(t *testing.T) {
	for _, c := range []struct{ err, want string }{
		{"kafka source: list topic t: unable to dial: dial tcp 127.0.0.1:1: connect: connection refused", "kafka source: list topic t: unable to dial: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"kafka source: list topic t: invalid large response size 1157627904 > limit 104857600: response exceeds BrokerMaxReadBytes", "the server at the bootstrap address does not answer as a Kafka broker"},
	} {
		if got := readerError(errors.New(c.err)); got != c.want {
			t.Errorf("readerError(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
