// Package splits holds what the built-in generators (connector/nexmark,
// connector/datagen) share about splits: a generator's rows are numbered
// 0, 1, 2, ..., and split s of n owns the numbers congruent to s modulo
// n, so a split's position is simply the next number it will produce.
// Positions go into the checkpoint like Kafka offsets, keyed by split, and
// a reader resumes each split from its committed position.
package splits
