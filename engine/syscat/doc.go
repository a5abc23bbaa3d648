// Package syscat is weir's system catalog: the relations that describe
// the database rather than hold its data. It has three schemas.
//
//   - pg_catalog (pgcatalog.go) emulates the parts of PostgreSQL's
//     system catalogs that psql 15's meta-commands (\d, \dt, \dn, \du,
//     \dp ...) and common drivers read: pg_class, pg_attribute,
//     pg_namespace, pg_type, pg_index, pg_roles and their kin, with
//     Postgres's OIDs for its own objects. Describe answers the catalog
//     functions over them (pg_get_indexdef, obj_description, ...).
//     pg_proc and pg_operator list the functions package's registry
//     (functions.Procs, functions.Opers), for \df, \da and \do; the
//     catalogs of what weir does not have (extensions, event triggers,
//     large objects, conversions) are empty. The relations of
//     pg_catalog and information_schema are themselves relations of
//     pg_class and pg_attribute (sysrels.go), with PostgreSQL 15's OIDs,
//     kinds and NOT NULL columns (pgrels.go), for \d pg_class and \dS.
//   - information_schema (infoschema.go) has the SQL standard's
//     schemata, tables, views, columns and sequences, each listing, as
//     PostgreSQL's, only what the asking role owns or holds a privilege
//     on (Provider.HoldsAny).
//   - weir (weir.go, views.go) holds weir's own views of the running
//     system: checkpoints, jobs, operators, state tables, sources and
//     their partitions, sinks, stream errors and watermarks. The weir
//     schema is a schema like any other to tools: its views are listed
//     in pg_class and information_schema, and every view and column
//     carries a description (\d+ weir.jobs).
//
// Rows are built on every scan from what the engine provides, so they
// are always current. The engine hands its state over through one
// read-only interface, Provider: the catalog of relations and roles,
// the asking session's settings, and the running system (System) as
// plain records (Job, Checkpoint, Sink, ...). The package decides how
// those facts read as rows; it never reaches into the engine, and
// imports no package below it (the dependency test keeps it so):
//
//	session ──SELECT * FROM weir.jobs──▶ binder: Lookup("weir", "jobs") → columns
//	executor's system scan ──▶ Rows(provider, "weir", "jobs")
//	                              └─▶ provider.Jobs() ─▶ []Job ─▶ rows
//
// An unqualified name is looked up in pg_catalog, then in
// information_schema; the engine decides whether a user relation of
// the same name comes first (PostgreSQL searches pg_catalog before the
// schemas of search_path unless search_path names it).
package syscat
