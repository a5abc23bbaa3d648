package engine

import (
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// A database sink's bad options are refused with their SQLSTATE before
// anything connects, and the allow-list of connector hosts applies.
func TestDBSinkOptions(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	e.cfg.AllowedConnectorHosts = []string{"db.internal"}
	s := session(t, e)
	if _, err := run(t, s, "CREATE TABLE t (k int, v text) APPEND ONLY"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    string
		code pgerr.Code
		msg  string
	}{
		{"CREATE SINK a FROM t WITH (connector = 'postgres', host = 'db.internal', database = 'd') FORMAT PLAIN", pgerr.InvalidParameterValue, "needs the option table"},
		{"CREATE SINK a FROM t WITH (connector = 'postgres', host = 'db.internal', table = 'x') FORMAT PLAIN", pgerr.InvalidParameterValue, "needs the option database"},
		{"CREATE SINK a FROM t WITH (connector = 'postgres', url = 'postgres://u:pw@db.internal/d', host = 'h', table = 'x') FORMAT PLAIN", pgerr.InvalidParameterValue, "either url or host"},
		{"CREATE SINK a FROM t WITH (connector = 'mysql', host = 'db.internal', port = 'x', database = 'd', table = 'x') FORMAT PLAIN", pgerr.InvalidParameterValue, "invalid value for port"},
		{"CREATE SINK a FROM t WITH (connector = 'postgres', host = 'db.internal', database = 'd', table = 'x', batch.size = '0') FORMAT PLAIN", pgerr.InvalidParameterValue, "batch.size"},
		{"CREATE SINK a FROM t WITH (connector = 'postgres', host = 'db.internal', database = 'd', table = 'x') FORMAT DEBEZIUM", pgerr.FeatureNotSupported, "FORMAT DEBEZIUM"},
		{"CREATE SINK a FROM t WITH (connector = 'mysql', host = 'db.internal', database = 'd', table = 'x', sink.delivery.guarantee = 'at-least-once', sink.two_phase_commit = 'true') FORMAT PLAIN", pgerr.InvalidParameterValue, "needs sink.delivery.guarantee"},
		{"CREATE SINK a FROM t WITH (connector = 'mysql', host = 'db.internal', database = 'd', table = 'x', sink.two_phase_commit = 'maybe') FORMAT PLAIN", pgerr.InvalidParameterValue, "sink.two_phase_commit"},
		{"CREATE SINK a FROM t WITH (connector = 'postgres', host = 'db.internal', database = 'd', table = 'x') FORMAT PLAIN ENCODE JSON", pgerr.FeatureNotSupported, "take no ENCODE"},
		{"CREATE SINK a FROM t WITH (connector = 'postgres', host = 'db.internal', database = 'd', table = 'x', sink.decouple = 'false') FORMAT PLAIN", pgerr.FeatureNotSupported, "cannot be coupled"},
		{"CREATE SINK a FROM t WITH (connector = 'postgres', url = 'postgres://u:pw@evil:5432/d', table = 'x') FORMAT PLAIN", pgerr.InsufficientPrivilege, "are not allowed"},
		{"CREATE SINK a FROM t WITH (connector = 'mysql', url = 'u:pw@tcp(evil:3306)/d', table = 'x') FORMAT PLAIN", pgerr.InsufficientPrivilege, "are not allowed"},
		{"CREATE SINK a FROM t WITH (connector = 'kafka', topic = 'x', properties.bootstrap.server = 'db.internal:9092') FORMAT PLAIN", pgerr.SyntaxError, "needs ENCODE"},
	} {
		_, err := run(t, s, c.q)
		if pgerr.CodeOf(err) != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s:\n got %v\nwant %s containing %q", c.q, err, c.code, c.msg)
		}
		if err != nil && strings.Contains(err.Error(), "pw@") {
			t.Errorf("%s: the error shows the password: %v", c.q, err)
		}
	}
}

// redactURL hides the password of every URL form a database sink takes.
func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://u:secret@h:5432/d?sslmode=disable", "postgres://u:********@h:5432/d?sslmode=disable"},
		{"postgres://u@h/d", "postgres://u@h/d"},
		{"host=h user=u password=secret dbname=d", "host=h user=u password=******** dbname=d"},
		{"mysql://u:secret@h:3306/d", "mysql://u:********@h:3306/d"},
		{"u:secret@tcp(h:3306)/d", "u:********@tcp(h:3306)/d"},
		{"postgres://h/d?password=secret&sslmode=disable", "postgres://h/d?password=********&sslmode=disable"},
	} {
		if got := redactURL(c.in); got != c.want {
			t.Errorf("redactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	with := map[string]string{"connector": "postgres", "password": "secret", "url": "postgres://u:secret@h/d"}
	for k, v := range redactOptions(with) {
		if strings.Contains(v, "secret") {
			t.Errorf("redactOptions kept the password in %s = %q", k, v)
		}
	}
}
