package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/wire"
)

// Sequence privileges, as PostgreSQL 15's. A sequence made by CREATE
// SEQUENCE keeps its ACL as a relation does; a serial or identity
// column's sequence belongs to the table's owner and keeps its ACL in
// the column (catalog.Column.SeqACL). The privileges are SELECT, UPDATE
// and USAGE ("rwU"), and each function needs any one of a set:
//
//   - nextval: USAGE or UPDATE (a serial column's default calls it, so
//     an INSERT relying on it needs one of them too; an identity column's
//     value is taken without a check, as PostgreSQL's NextValueExpr);
//   - currval, lastval and pg_sequences.last_value: SELECT or USAGE;
//   - setval: UPDATE.
//
// Denials are 42501 "permission denied for sequence name".

// seqRef is a sequence: rel itself (col -1) or the sequence of rel's
// column col.
type seqRef struct {
	rel *catalog.Relation
	col int
}

// name is the sequence's name.
func (q seqRef) name() string {
	if q.col < 0 {
		return q.rel.Name
	}
	return q.rel.Cols[q.col].Seq
}

// acl is the sequence's ACL.
func (q seqRef) acl() catalog.RelACL {
	if q.col < 0 {
		return q.rel.ACL
	}
	return q.rel.Cols[q.col].SeqACL
}

// all is every privilege the sequence (or, for col -1, the relation)
// can have.
func (q seqRef) all() catalog.Privilege {
	if q.col >= 0 {
		return catalog.PrivSequenceAll
	}
	return relPrivAll(q.rel)
}

// holdsSequenceAny reports whether role r holds any of the privileges in
// p on the sequence: as a superuser, or through its ACL (the owner's
// privileges and grants) to it, its roles or PUBLIC.
func (e *Engine) holdsSequenceAny(r *catalog.Role, q seqRef, p catalog.Privilege) bool {
	if r.Superuser {
		return true
	}
	return q.acl().Privileges(q.rel.Owner, q.all(), e.effectiveRoles(r))&p != 0
}

// checkSequence refuses, with 42501, a use of the sequence of rel's
// column col (-1: rel) that needs any of the privileges in p the
// session's role does not hold.
func (s *Session) checkSequence(rel *catalog.Relation, col int, p catalog.Privilege) error {
	q := seqRef{rel, col}
	if s.eng.holdsSequenceAny(s.role(), q, p) {
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for sequence %s", q.name())
}

// sequenceByName finds the sequence an ObjectName of GRANT names: a
// CREATE SEQUENCE sequence, or a serial or identity column's. ok is
// false when n names no sequence; err is set when it names a relation
// of another kind.
func (e *Engine) sequenceByName(schema string, n sql.ObjectName) (seqRef, bool, error) {
	if rel, ok := e.cat.Lookup(schema, n.Name); ok {
		if rel.Kind != catalog.KindSequence {
			return seqRef{}, false, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a sequence", n.Name)
		}
		return seqRef{rel, -1}, true, nil
	}
	for _, rel := range e.cat.All() {
		if rel.Kind != catalog.KindTable || rel.Schema != schema {
			continue
		}
		for i, c := range rel.Cols {
			if c.Seq == n.Name && !c.Dropped {
				return seqRef{rel, i}, true, nil
			}
		}
	}
	return seqRef{}, false, nil
}

// schemaSequences returns every sequence of schema, CREATE SEQUENCE's
// and the serial and identity columns', for GRANT ... ON ALL SEQUENCES
// IN SCHEMA.
func (e *Engine) schemaSequences(schema string) []seqRef {
	var out []seqRef
	for _, rel := range e.cat.All() {
		if rel.Schema != schema {
			continue
		}
		switch rel.Kind {
		case catalog.KindSequence:
			out = append(out, seqRef{rel, -1})
		case catalog.KindTable:
			for i, c := range rel.Cols {
				if c.Seq != "" && !c.Dropped {
					out = append(out, seqRef{rel, i})
				}
			}
		}
	}
	return out
}

// sequencePrivileges reads the privileges of GRANT ... ON SEQUENCE: 0LP01
// for one a sequence does not have.
func sequencePrivileges(words []string) (catalog.Privilege, error) {
	var p catalog.Privilege
	for _, w := range words {
		switch w {
		case "select":
			p |= catalog.PrivSelect
		case "update":
			p |= catalog.PrivUpdate
		case "usage":
			p |= catalog.PrivUsage
		case "all":
			p |= catalog.PrivSequenceAll
		default:
			return 0, pgerr.New(codeInvalidGrantOperation, "invalid privilege type %s for sequence", strings.ToUpper(w))
		}
	}
	return p, nil
}

// tablePrivilegesOnSequence reads the privileges of GRANT ... ON TABLE
// naming a sequence, as PostgreSQL does: ALL is the sequence's every
// privilege, and a table privilege a sequence does not have is dropped
// with a warning.
func tablePrivilegesOnSequence(words []string, name string, io wire.ExecIO) catalog.Privilege {
	var p catalog.Privilege
	warn := false
	for _, w := range words {
		switch w {
		case "all":
			p |= catalog.PrivSequenceAll
		default:
			q, err := sequencePrivileges([]string{w})
			if err != nil {
				warn = true
			}
			p |= q
		}
	}
	if warn {
		io.Notice("WARNING", "0LP01", "sequence \""+name+"\" only supports USAGE, SELECT, and UPDATE privileges")
	}
	return p
}

// grantSequences applies GRANT (revoke false) or REVOKE of p to or from
// the grantees to the sequences seqs, each of which the session's role
// must own (42501 otherwise).
func (s *Session) grantSequences(ctx context.Context, seqs []seqRef, grantees []uint32, revoke bool, p catalog.Privilege) error {
	if err := s.eng.writeMu.lockContext(ctx); err != nil {
		return err
	}
	defer s.eng.writeMu.Unlock()
	// Every sequence is checked before any is changed, and all change
	// in one batch: a GRANT that fails changes nothing.
	for _, q := range seqs {
		if !s.superuser() && !s.owns(q.rel) {
			return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for sequence %s", q.name())
		}
	}
	changed := map[uint32]*catalog.Relation{}
	var order []*catalog.Relation
	for _, q := range seqs {
		// Read the relation again under writeMu so a concurrent change
		// to it is not lost (and once for a table's several serial
		// columns).
		cp, ok := changed[q.rel.ID]
		if !ok {
			cur, found := s.eng.cat.ByID(q.rel.ID)
			if !found {
				continue
			}
			cp = cur.Clone()
			changed[q.rel.ID] = cp
			order = append(order, cp)
		}
		if q.col < 0 {
			cp.ACL = cp.ACL.Update(cp.Owner, catalog.PrivSequenceAll, grantees, p, revoke)
		} else {
			if q.col >= len(cp.Cols) || cp.Cols[q.col].Seq != q.name() {
				continue
			}
			cp.Cols[q.col].SeqACL = cp.Cols[q.col].SeqACL.Update(cp.Owner, catalog.PrivSequenceAll, grantees, p, revoke)
		}
	}
	if len(order) > 0 {
		return s.eng.cat.ReplaceAll(order...)
	}
	return nil
}

// grantOnSequences runs GRANT and REVOKE ON SEQUENCE name, ... and ON
// ALL SEQUENCES IN SCHEMA s.
func (s *Session) grantOnSequences(ctx context.Context, st *sql.Grant, grantees []uint32) error {
	p, err := sequencePrivileges(st.Privileges)
	if err != nil {
		return err
	}
	var seqs []seqRef
	for _, o := range st.Objects {
		if st.On == "all sequences in schema" {
			if !slices.Contains(s.eng.cat.Schemas(), o.Name) {
				return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", o.Name)
			}
			seqs = append(seqs, s.eng.schemaSequences(o.Name)...)
			continue
		}
		q, ok, err := s.eng.sequenceByName(s.schemaOf(o), o)
		if err != nil {
			return err
		}
		if !ok {
			return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", o.Name)
		}
		seqs = append(seqs, q)
	}
	return s.grantSequences(ctx, seqs, grantees, st.Revoke, p)
}

// HasSequencePrivilege implements functions.SequencePrivilegeChecker:
// has_sequence_privilege([user,] sequence, privileges), any of the listed
// privileges sufficing.
func (s *Session) HasSequencePrivilege(user, seq string, privs string) (bool, error) {
	r, ok := s.eng.cat.RoleByName(user)
	if !ok {
		return false, pgerr.New(codeUndefinedObject, "role \"%s\" does not exist", user)
	}
	// PostgreSQL reads the privileges before it looks the sequence up.
	var want catalog.Privilege
	for _, p := range strings.Split(privs, ",") {
		switch strings.ToUpper(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p), " WITH GRANT OPTION"))) {
		case "SELECT":
			want |= catalog.PrivSelect
		case "UPDATE":
			want |= catalog.PrivUpdate
		case "USAGE":
			want |= catalog.PrivUsage
		default:
			return false, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", strings.TrimSpace(p))
		}
	}
	rel, col, err := s.findSequence(seq)
	if err != nil {
		return false, err
	}
	return s.eng.holdsSequenceAny(r, seqRef{rel, col}, want), nil
}
