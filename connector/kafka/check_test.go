package kafka

import (
	"errors"
	"testing"

	"github.com/weirdb/weir/types"
)

// TestSourceCheck: a row that SourceConfig.Check refuses makes its
// record malformed, with the check's error as the reason, and the
// reader goes on with the next record.
func TestSourceCheck(t *testing.T) {
	b := startBroker(t, BrokerOptions{})
	const topic = "checked"
	createTopic(t, b, topic, 1)
	cl := producer(t, b)
	produce(t, cl, topic, 0, "", `{"id": 1, "name": "a"}`)
	produce(t, cl, topic, 0, "", `{"id": -2, "name": "b"}`)
	produce(t, cl, topic, 0, "", `{"id": 3, "name": "c"}`)
	cfg := SourceConfig{
		Name: "s", Brokers: []string{b.Addr()}, Topic: topic, Schema: srcSchema,
		Decoder: NewJSONDecoder(srcSchema, nil), Logger: quiet,
		Check: func(r types.Row) error {
			if len(r) != len(srcSchema) {
				return errors.New("row of the wrong width")
			}
			if r[0].I < 0 {
				return errors.New("value for domain posint violates check constraint \"posint_check\"")
			}
			return nil
		},
	}
	r := newReader(t, cfg)
	got := pollRows(t, r, 2)
	if len(got) != 2 || got[0] != "p0@0 + 1|a" || got[1] != "p0@2 + 3|c" {
		t.Fatalf("rows %q", got)
	}
	m := r.Malformed()
	if len(m) != 1 || m[0].Offset != 1 || m[0].Reason != `value for domain posint violates check constraint "posint_check"` {
		t.Fatalf("malformed %v", m)
	}
}
