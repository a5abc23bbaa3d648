// Package catalog is weir's persistent catalog: the schemas and the
// relations (tables, views, materialized views, sources, sinks), types and
// functions that users create, with their columns, keys, definitions and
// dependencies.
//
// The whole catalog lives in memory (a Catalog, safe for concurrent use)
// and is written through to storage: every change is one storage batch,
// committed durably before the call returns, so after a crash the catalog
// holds exactly the changes that were acknowledged. Open loads it back.
//
// # Identity
//
// A relation's ID comes from the storage id counter "relation", so it is
// never reused, even after a crash; the ID is also the table id of the
// relation's rows in storage. Its pg_class oid is FirstUserOID + ID, which
// puts user objects where Postgres puts them (above 16384).
//
// # Storage layout
//
// Entries sit in the catalog keyspace of package storage, next to the
// relations' data:
//
//	[0x01]['s'][schema name]           -> {"v":1,"name":"analytics"}
//	[0x01]['r'][relation id u32 BE]    -> {"v":1,"id":1,"schema":"public","name":"t","kind":"table",
//	                                       "cols":[{"name":"a","type_oid":23,"typmod":-1}],"pk":[0],...}
//	[0x01]['u'][role oid u32 BE]        -> {"v":1,"oid":10,"name":"root","superuser":true,
//	                                       "password":"SCRAM-SHA-256$4096:...",...}
//	[0x01]['g'][schema name]            -> {"v":1,"schema":"public","acl":{"1073741825":16}}
//	[0x01]['y'][type oid u32 BE]        -> {"v":1,"oid":16390,"schema":"public","name":"mood","kind":"e",...}
//	[0x01]['p'][function oid u32 BE]    -> {"v":1,"oid":16391,"schema":"public","name":"add1","arg_names":["a"],
//	                                       "arg_oids":[23],"ret_oid":23,"volatility":"i","src":" SELECT a + 1 "}
//	...
//	[0x10][relation id u32 BE][key]    -> rows of the relation (package storage)
//
// Entries are JSON with a format version "v": readable when debugging,
// open to new fields, and refused (DataCorrupted) when the version is
// unknown. Column types are stored by Postgres type OID and typmod.
// Dropping a relation deletes its entry and range-deletes its rows in the
// same batch, so no orphaned data survives a crash.
//
// Roles (roles.go) live beside the relations: each relation records its
// owner and the privileges granted on it (an ACL of grantee OID →
// privileges, Postgres's aclitem), and schemas their granted CREATE and
// USAGE. A role's password is stored only as its SCRAM-SHA-256 verifier.
// Bootstrap makes the first superuser (OID 10) once, on first start.
//
// User functions (functions.go) are scalar SQL functions kept by OID
// with their body as written; the planner inlines them. A view's entry
// keeps the OIDs of the functions its definition calls ("func_deps"),
// which DROP FUNCTION reads as its dependencies, and copies of every
// function it inlined ("funcs"), which a materialized view is planned
// again with.
//
// The public schema always exists and is not stored; pg_catalog and
// information_schema are reserved for the virtual system catalogs, which
// the engine serves and this package does not hold.
package catalog
