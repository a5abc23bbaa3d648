// Package nexmark is weir's built-in generator of the Nexmark benchmark's
// events: the people, auctions and bids of an online auction house, as
// Flink, RisingWave, Arroyo and Feldera generate them to measure stream
// processors.
//
// # The event stream
//
// Events are numbered 0, 1, 2, …. Every 50 events hold 1 person, 3
// auctions and 46 bids, always in that order (event n is a Person when
// n%50 < 1, an Auction when n%50 < 4, else a Bid). Everything about event
// n is a function of n alone: its kind, its ids, its event time and its
// random fields, which come from a generator seeded with n. So a reader
// that resumes at any event reproduces exactly what an uninterrupted one
// would have read, which is what makes the source replayable after a
// recovery (its position is checkpointed like a Kafka offset) and lets
// several splits share the stream.
//
//	event:   0  1  2  3  4 … 49 50 51 …
//	kind:    P  A  A  A  B … B  P  A  …
//	time:    base + round(n × 10⁶/rate µs) ms   (rate 10,000/s by default)
//
// The model is the standard generator's (nexmark/nexmark's Java
// generator, also ported to Rust as risingwavelabs/nexmark-rs): person
// ids start at 1000, auction ids at 1000, 5 categories from 10; a random
// person is one of the last 1,000 (or up to 10 not yet created), a
// random auction one of the last 100 (or up to 10 ahead); hot sellers
// (3 of 4 auctions), hot auctions (1 of 2 bids) and hot bidders (3 of 4
// bids) are the last id rounded down to a hundred; prices are
// log-uniform from 1 to 1,000,000 dollars (in cents); half the bids come
// from four hot channels (Google, Facebook, Baidu, Apple), the rest from
// 10,000 channel-i with their urls; an auction expires within twice the
// time 100 auctions take to arrive; `extra` pads each event to its
// average size (200 B for a person, 500 B for an auction, 100 B for a
// bid). States are lower case, as RisingWave's generator writes them, so
// RisingWave's q3 literals ('or', 'id', 'ca') find them.
//
// # Tables and splits
//
// A source reads one kind (TableType: Person, Auction or Bid), with
// RisingWave's column names (Columns). The k-th event of that kind has a
// global event number (EventNumber); EventNum bounds the global numbers
// read, so a Bid source over 1,000,000 events reads 920,000 bids.
// Split s of n reads the kind's events s, s+n, s+2n, …, and its position
// is the next such index: the splits' union is the whole stream, and a
// Reader over all splits merges them back into event order.
//
// Event time does not depend on when events are generated: a run at full
// speed and a run throttled to MinEventGap (RisingWave's
// nexmark.min.event.gap.in.ns, a wall-clock pacing) produce the same rows.
package nexmark
