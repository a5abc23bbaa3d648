// Package kafkatest is the harness of weir's Kafka end-to-end tests: it
// runs weir with its embedded broker (or the broker as its own process),
// restarts and kills them on the same data directories, and reads and
// writes topics with kcat, an independent librdkafka client, so that what
// the tests see is what any Kafka consumer would see.
//
// A typical exactly-once crash test:
//
//	w := kafkatest.StartWeir(t, kafkatest.Options{})
//	kafkatest.CreateTopic(t, w.KafkaAddr, "in", 3)
//	kafkatest.Produce(t, w.KafkaAddr, "in", lines...)
//	// CREATE SOURCE ... CREATE SINK ... over w.ConnString()
//	w.SetEnv("WEIR_FAULT=" + fault.CheckpointAfterCommit)
//	w.Restart()                       // armed; dies at the point
//	exit, err := w.WaitExit(time.Minute)
//	w.SetEnv()                        // disarmed
//	w.Restart()                       // recovery
//	recs := kafkatest.Consume(t, w.KafkaAddr, "out")
//	if d := kafkatest.Duplicates(recs); len(d) > 0 { ... }
//
// # Topics
//
// Tests create their topics with CreateTopic (a CreateTopics request sent
// with franz-go's kadm), because kcat cannot create topics and because
// automatic creation picks the broker's default partition count. weir's
// broker also persists automatically created topics at once (kfake alone
// writes them only on a clean shutdown), so producing to a new topic
// with kcat works too and survives a crash.
//
// # Crashes and the embedded broker
//
// SIGKILL of `weir serve --embedded-kafka` kills the broker with it. On
// restart the broker keeps every transaction that was open when it died,
// as Kafka does (kfake alone would abort them;
// TestCrashedBrokerKeepsOpenTransactions shows it), so a sink
// transaction pre-committed by a checkpoint that had committed (fault
// point checkpoint.after_commit) is committed by recovery. Crash tests
// run the broker as its own process with StartBroker all the same, so
// that weir and the broker die separately (TestCrashMatrixBrokerKill
// kills both, one after the other).
//
// kcat must be installed; the helpers fail the test (t.Fatal) when it is
// not on PATH.
package kafkatest
