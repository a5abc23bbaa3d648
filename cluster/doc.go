// Package cluster runs weir as several nodes over one Kafka cluster
// (`weir serve --cluster <bootstrap> --node-id N`), with Kafka as the only
// distributed system: no consensus and no data transport of weir's own.
// docs/scale-out.md gives the reasons and the measurements; this is the
// story of the code.
//
// A Node replays the catalog topic (`_weir.<name>.catalog`) from its
// start and keeps following it. Every record is a DDL statement, applied
// by Catalog.Apply, a deterministic state machine: every node holds the
// same catalog after the same record, and two conflicting statements are
// decided by their order in the log. A node that receives DDL checks it,
// appends it and answers once its own replay applied it (Node.Submit).
//
// Each materialized view runs as a job on every node (job.go). The job is
// a member of the view's consumer group, which assigns it partitions of
// the source topic and of the view's repartition topic:
//
//	source partition ──decode, key──► repartition topic (hash of the group key)
//	repartition partition p (key group p) ──aggregate──► changelog partition p
//	                                                 └──► sink topics
//
// The job works in epochs. An epoch is one poll of records and one Kafka
// transaction (kgo.GroupTransactSession) holding everything the epoch
// produced and the offsets it consumed; a rebalance during the epoch
// aborts it, and the job then rewinds to the committed offsets and drops
// the epoch's state changes. This is Kafka Streams' exactly-once.
//
// A key group's state lives in memory and in its changelog partition.
// The lifecycle on a node is the state machine keyGroups (keygroup.go,
// traced in testdata/keygroups.trace): assigned → fence written → restored
// up to the fence → active; revoked → dropped at the end of the epoch.
//
// Queries: Node implements wire.Handler. A SELECT of a view asks the
// group which node owns each key group and reads them from their owners
// over the Postgres wire (WEIR CLUSTER READ), each at its owner's last
// committed epoch, which a NOTICE reports. Everything else is 0A000.
package cluster
