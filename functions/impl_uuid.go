package functions

import (
	"crypto/rand"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// UUID functions (docs §9.14).

// uuidOverloads lists gen_random_uuid: a version 4 uuid per call.
func uuidOverloads() []*Overload {
	var os []*Overload
	genRandomUuidImpl := func([]types.T, types.T) (Impl, bool) {
		return Impl{Row: func(*Context, []types.Datum) (types.Datum, error) { return genRandomUUID() }}, true
	}
	os = append(os, volatile("gen_random_uuid", genRandomUuidImpl, tUuid))
	return os
}

// genRandomUUID is PostgreSQL's gen_random_uuid: a version 4 (random)
// uuid of RFC 4122 variant, 122 bits from a cryptographic source, as
// pg_strong_random gives them.
func genRandomUUID() (types.Datum, error) {
	var b [types.UUIDLen]byte
	if _, err := rand.Read(b[:]); err != nil {
		return types.NullDatum, pgerr.New(pgerr.InternalError, "could not generate random values")
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // variant 10xx
	return types.DString(types.FormatUUID(b[:])), nil
}
