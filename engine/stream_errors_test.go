package engine

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestStreamErrorLogWording checks that the first stream error of a kind
// is logged as what it is: an expression error turned into NULL, a
// connector's connection error (class 08), which the connector retries,
// or a sink's error, whatever its class.
func TestStreamErrorLogWording(t *testing.T) {
	var buf bytes.Buffer
	r := newStreamErrors(slog.New(slog.NewTextHandler(&buf, nil)))
	r.Record(1, "Project", pgerr.New(pgerr.DivisionByZero, "division by zero"))
	r.Record(1, "source s", pgerr.Wrap(pgerr.ConnectionException, errors.New("connection refused"), "reading the topic"))
	r.Record(1, "sink out", pgerr.New(pgerr.SerializationFailure, "writing weir_sink_progress: deadlock"))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "streaming expression error, the value is NULL") ||
		!strings.Contains(lines[1], "streaming connection error, retrying") ||
		!strings.Contains(lines[2], `msg="sink error"`) {
		t.Errorf("log:\n%s", buf.String())
	}
}
