package kafka

import (
	"context"
	"flag"
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
	answers := filepath.Join(t.TempDir(), "answers.txt")
	cmd.Env = append(os.Environ(),
		fmt.Sprintf("PORT=%d", port),
		fmt.Sprintf("KAFKA_PORT=%d", kafkaPort),
		"WEIR="+bin,
		"ANSWERS="+answers,
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
	checkReadmeAnswers(t, filepath.Join(root, "README.md"), answers)
}

// Markers around the flights answers in README.md.
const (
	answersBegin = "<!-- flights answers: written by scripts/flights.sh, checked by tests/kafka (go test ./tests/kafka -run TestFlightsExample -rewrite) -->\n```\n"
	answersEnd   = "```\n<!-- end of flights answers -->"
)

// checkReadmeAnswers fails unless README.md shows, between its markers,
// exactly the answers the script printed after the restart (all flights
// counted, so they do not depend on where the SIGKILL landed); -rewrite
// writes them there instead.
func checkReadmeAnswers(t *testing.T, readme, answersPath string) {
	t.Helper()
	got, err := os.ReadFile(answersPath)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i := strings.Index(s, answersBegin)
	j := strings.Index(s, answersEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no flights answers block (markers %q ... %q)", answersBegin, answersEnd)
	}
	shown := s[i+len(answersBegin) : j]
	if shown == string(got) {
		return
	}
	if *rewrite {
		s = s[:i+len(answersBegin)] + string(got) + s[j:]
		if err := os.WriteFile(readme, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the flights answers in %s", readme)
		return
	}
	t.Errorf("README.md shows other flights answers than scripts/flights.sh prints (rerun with -rewrite):\n--- README\n%s\n--- script\n%s", shown, got)
}

var rewrite = flag.Bool("rewrite", false, "write the flights answers the script prints into README.md")
