package kafka

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

// flightsScriptTimeout only guards against a hung script; the script
// itself takes well under a minute.
const flightsScriptTimeout = 5 * time.Minute

// TestFlightsExample runs scripts/flights.sh on free ports with the test's
// weir binary: the flights example end to end, with a SIGKILL of weir in
// the middle of the replay. The script exits non-zero unless every view
// equals its query run as a batch query over a plain table of the same
// flights and the sink topic's latest record per key equals the departure
// board; the test fails with its output if it does.
func TestFlightsExample(t *testing.T) {
	kafkatest.Kcat(t)
	for _, tool := range []string{"psql", "jq", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (%v); scripts/flights.sh needs it (.ci/run installs it)", tool, err)
		}
	}
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := testenv.Binary(t)
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	kafkaPort, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	for kafkaPort == port {
		if kafkaPort, err = testenv.FreePort(); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), flightsScriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts", "flights.sh"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		fmt.Sprintf("PORT=%d", port),
		fmt.Sprintf("KAFKA_PORT=%d", kafkaPort),
		"WEIR="+bin,
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/flights.sh: %v\n%s", err, out)
	}
	// The script ends with PASS and one ok line per view and the sink.
	if !strings.Contains(string(out), "PASS: ") || strings.Count(string(out), "\nok   ") != 6 {
		t.Fatalf("scripts/flights.sh succeeded without its checks:\n%s", out)
	}
	t.Logf("scripts/flights.sh:\n%s", out[max(0, len(out)-1500):])
}
