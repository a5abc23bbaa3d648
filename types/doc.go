// Package types holds weir's SQL types and values: type identities with
// their Postgres OIDs (T), single values (Datum), columnar batches (Vec,
// Chunk) with changelog ops and visibility, schemas, Postgres text and
// binary formats, casts and comparison, and the order-preserving
// (memcomparable) key encoding and row value encoding used by storage.
//
// Every other weir package builds on this one; it imports nothing from
// weir but internal/pgerr.
package types
