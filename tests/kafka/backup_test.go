package kafka

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

// TestBackupHandOver moves a running pipeline to a restored copy with no
// record lost or repeated. While input streams in, BACKUP TO ... WITH
// (hand_over_sinks = true) copies the database at one committed epoch,
// stopping the original's sinks at it and then dropping them there; the
// original's view goes on counting. The original is stopped and more
// input arrives. The copy refuses to start without --take-over-sinks (it
// would write to the original's sinks), and with it resumes from the
// backup's epoch, its view and sinks rescaled as it catches up: at the
// end its view equals the aggregate of all the
// input, the PLAIN sink's topic read at read_committed holds every input
// record exactly once, and the UPSERT sink's topic ends at the view's rows
// with every count increasing.
func TestBackupHandOver(t *testing.T) {
	p := newPipeline(t, true, true)
	p.produce(500)
	p.waitMV(500)

	const streamed = 2500
	errc := p.produceAsync(streamed, 100, 20*time.Millisecond)
	kafkatest.Eventually(t, time.Minute, "agg counting more than 500 records", func() (bool, string) {
		n, ok := p.mvCount()
		return ok && n > 500, fmt.Sprintf("sum(n) = %d", n)
	})
	backupDir := filepath.Join(t.TempDir(), "copy")
	rows := kafkatest.Query(t, p.w.ConnString(), fmt.Sprintf("BACKUP TO '%s' WITH (hand_over_sinks = true)", backupDir))
	if len(rows) != 1 || rows[0][1] != backupDir {
		t.Fatalf("BACKUP returned %q", rows)
	}
	if epoch, err := strconv.ParseUint(rows[0][0], 10, 64); err != nil || epoch == 0 {
		t.Fatalf("BACKUP's epoch %q", rows[0][0])
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	// The original's view goes on; its sinks are gone.
	p.waitMV(streamed)
	if rows := kafkatest.Query(t, p.w.ConnString(), "SELECT name FROM weir.sinks"); len(rows) > 0 {
		t.Fatalf("the original still has sinks after handing them over: %q", rows)
	}
	kafkatest.Exec(t, p.w.ConnString(), "FLUSH")
	handed := len(kafkatest.Consume(t, p.b.Addr, plainTopic))
	if handed == 0 || handed >= streamed {
		t.Fatalf("%s holds %d records at the hand-over, of %d produced by then", plainTopic, handed, streamed)
	}
	p.w.Stop()

	// Later input, while no weir runs.
	const total = 3000
	p.produce(total)

	// Without --take-over-sinks the copy does not start.
	cmd := exec.Command(testenv.Binary(t), "serve", "--data-dir", backupDir, "--listen", "127.0.0.1:0", "--metrics-listen", "")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "55000") || !strings.Contains(string(out), "--take-over-sinks") {
		t.Fatalf("a copy holding sinks started without --take-over-sinks (%v):\n%s", err, out)
	}
	if n := len(kafkatest.Consume(t, p.b.Addr, plainTopic)); n != handed {
		t.Fatalf("%s went from %d to %d records while no copy ran its sinks", plainTopic, handed, n)
	}

	c := kafkatest.StartWeir(t, kafkatest.Options{Broker: p.b, DataDir: backupDir, Args: []string{"--take-over-sinks"}})
	kafkatest.KeepLogs(t, c.LogPath)
	p.w = c
	// The restored copy runs its view and sinks at other parallelisms
	// than the original did, while it catches up.
	actors := func() string {
		return fmt.Sprint(kafkatest.Query(t, c.ConnString(), "SELECT name, parallelism FROM weir.jobs ORDER BY name"))
	}
	before := actors()
	kafkatest.Exec(t, c.ConnString(), "ALTER MATERIALIZED VIEW agg SET PARALLELISM = 3")
	if after := actors(); after == before {
		t.Fatalf("the parallelism did not change: %s", after)
	}
	p.check(total)
	// Its decoupled sinks are rescaled too: what the actors left in
	// their log stores is delivered once, in order.
	kafkatest.Exec(t, c.ConnString(), "ALTER SINK out_plain SET PARALLELISM = 1", "ALTER SINK out_upsert SET PARALLELISM = 3")
	p.check(total)
	// The take-over lasts: a plain restart runs the sinks. Renamed
	// sources and sinks keep their positions and transactions.
	kafkatest.Exec(t, c.ConnString(), "ALTER SOURCE src RENAME TO input", "ALTER SINK out_plain RENAME TO plain_out")
	c.SetArgs()
	c.Restart()
	if rows := kafkatest.Query(t, c.ConnString(), "SELECT name FROM weir.sinks ORDER BY name"); fmt.Sprint(rows) != "[[out_upsert] [plain_out]]" {
		t.Fatalf("sinks after the renames: %q", rows)
	}
	p.produce(total + 200)
	p.check(total + 200)
}
