// Package datagen is weir's generator of test rows (RisingWave's
// connector = 'datagen'): each column is a sequence or random values,
// described by options:
//
//	fields.<col>.kind   = 'sequence' | 'random'
//	fields.<col>.start, fields.<col>.end         a sequence's bounds (0, 32767)
//	fields.<col>.min, fields.<col>.max           a random number's bounds (0, 32767)
//	fields.<col>.length                          a random string's length (10)
//	fields.<col>.max_past                        a random timestamp's reach
//	                                             back from the base time ('1 day')
//	fields.<col>.seed                            a random column's seed (0)
//	datagen.rows.per.second                      the pace (10)
//	datagen.split.num                            splits (1)
//
// Numbers are sequences by default, strings, booleans and timestamps
// random. Row i of the stream (from 0) holds start+i in every sequence
// column and, in every random column, a value that is a function of the
// column's seed and i alone. So the stream is the same on every run and
// after every recovery: a reader resumes at a row index as a Kafka
// reader resumes at an offset, and split s of n reads rows s, s+n, ….
// The stream ends after the shortest sequence's last value; without a
// sequence it does not end.
//
// Random timestamps count back from a base time fixed when the source is
// created (Config.BaseMicros), not from the wall clock, for the same
// reason.
package datagen
