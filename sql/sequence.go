package sql

import (
	"strconv"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// CreateSequence is CREATE SEQUENCE [IF NOT EXISTS] name [AS type]
// [START [WITH] n] and the options that keep PostgreSQL's defaults
// (INCREMENT BY 1, NO MINVALUE, NO MAXVALUE, CACHE 1, NO CYCLE, OWNED BY
// NONE) and OWNED BY table.column; other option values are 0A000. A
// sequence counts up by 1 from Start to its type's maximum.
type CreateSequence struct {
	Name        ObjectName
	IfNotExists bool
	// As is "smallint", "integer" or "bigint" (the default).
	As string
	// Start is the first value (1 unless START is given).
	Start int64
	// Temp is set for CREATE TEMP[ORARY] SEQUENCE: the sequence lives in
	// the session's temporary schema and goes when the session ends.
	Temp bool
	// OwnedBy is the OWNED BY option, nil when not given.
	OwnedBy *OwnedBy
}

// OwnedBy is a sequence's OWNED BY [schema.]table.column or OWNED BY
// NONE (Column ""): the column the sequence belongs to, dropped with it.
type OwnedBy struct {
	Table  ObjectName
	Column string
}

// AlterSequence is ALTER SEQUENCE [IF EXISTS] name followed by RESTART
// [[WITH] n] (nextval then returns n, the sequence's start when n is not
// given), OWNED BY, or both, and the options that keep the defaults as
// CREATE SEQUENCE does.
type AlterSequence struct {
	Name     ObjectName
	IfExists bool
	// Restart is set for RESTART; RestartWith is the value to restart
	// at, nil for the start value.
	Restart     bool
	RestartWith *int64
	// OwnedBy is the OWNED BY option, nil when not given.
	OwnedBy *OwnedBy
}

func (*CreateSequence) stmt() {}
func (*AlterSequence) stmt()  {}

// sequenceTypes maps the type names CREATE SEQUENCE ... AS takes to the
// canonical ones.
var sequenceTypes = map[string]string{
	"smallint": "smallint", "int2": "smallint",
	"integer": "integer", "int": "integer", "int4": "integer",
	"bigint": "bigint", "int8": "bigint",
}

// createSequence parses CREATE SEQUENCE after its two words.
func (p *stmtParser) createSequence() (Stmt, error) {
	s := &CreateSequence{IfNotExists: p.accept("if", "not", "exists"), As: "bigint", Start: 1}
	n, err := p.objectName()
	if err != nil {
		return nil, err
	}
	s.Name = n
	for !p.atEnd() {
		switch {
		case p.accept("as"):
			t, ok := sequenceTypes[p.word(0)]
			if !ok {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
			}
			p.pos++
			s.As = t
		case p.accept("start"):
			p.accept("with")
			v, err := p.seqNumber()
			if err != nil {
				return nil, err
			}
			s.Start = v
		case p.accept("increment"):
			p.accept("by")
			if err := p.seqDefault(1, "INCREMENT"); err != nil {
				return nil, err
			}
		case p.accept("minvalue"):
			if err := p.seqDefault(1, "MINVALUE"); err != nil {
				return nil, err
			}
		case p.accept("cache"):
			if err := p.seqDefault(1, "CACHE"); err != nil {
				return nil, err
			}
		case p.accept("owned", "by"):
			o, err := p.ownedBy()
			if err != nil {
				return nil, err
			}
			s.OwnedBy = o
		case p.accept("no", "minvalue"), p.accept("no", "maxvalue"), p.accept("no", "cycle"):
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "this sequence option is not supported").
				WithHint("Sequences count up by 1 from START to the maximum of their type.").
				WithPosition(charPos(p.src, p.peek().Off))
		}
	}
	return s, nil
}

// seqNumber parses a positive integer sequence option value.
func (p *stmtParser) seqNumber() (int64, error) {
	t := p.peek()
	if t.Kind != TNumber {
		if t.Kind == TOp && t.Val == "-" {
			return 0, pgerr.New(pgerr.FeatureNotSupported, "sequences with negative values are not supported").WithPosition(charPos(p.src, t.Off))
		}
		return 0, p.errHere()
	}
	v, err := strconv.ParseInt(t.Val, 10, 64)
	if err != nil {
		return 0, pgerr.New(pgerr.SyntaxError, "invalid sequence option value %s", t.Val).WithPosition(charPos(p.src, t.Off))
	}
	p.pos++
	return v, nil
}

// seqDefault parses an option value that must be want, the only value
// weir's sequences have.
func (p *stmtParser) seqDefault(want int64, option string) error {
	off := p.peek().Off
	v, err := p.seqNumber()
	if err != nil {
		return err
	}
	if v != want {
		return pgerr.New(pgerr.FeatureNotSupported, "%s %d is not supported", option, v).
			WithHint("Sequences count up by 1 from START to the maximum of their type.").
			WithPosition(charPos(p.src, off))
	}
	return nil
}

// alterSequence parses ALTER SEQUENCE after its two words.
func (p *stmtParser) alterSequence() (Stmt, error) {
	s := &AlterSequence{IfExists: p.accept("if", "exists")}
	n, err := p.objectName()
	if err != nil {
		return nil, err
	}
	s.Name = n
	if p.accept("owner", "to") {
		return p.ownerTo("sequence", n, s.IfExists)
	}
	if p.accept("rename", "to") {
		r := &Rename{Kind: "sequence", IfExists: s.IfExists, Name: n}
		if r.NewName, err = p.name(); err != nil {
			return nil, err
		}
		return r, nil
	}
	if p.atEnd() {
		return nil, p.errHere()
	}
	for !p.atEnd() {
		switch {
		case p.accept("restart"):
			s.Restart = true
			if p.accept("with") || p.peek().Kind == TNumber {
				v, err := p.seqNumber()
				if err != nil {
					return nil, err
				}
				s.RestartWith = &v
			}
		case p.accept("owned", "by"):
			o, err := p.ownedBy()
			if err != nil {
				return nil, err
			}
			s.OwnedBy = o
		case p.accept("increment"):
			p.accept("by")
			if err := p.seqDefault(1, "INCREMENT"); err != nil {
				return nil, err
			}
		case p.accept("cache"):
			if err := p.seqDefault(1, "CACHE"); err != nil {
				return nil, err
			}
		case p.accept("no", "minvalue"), p.accept("no", "maxvalue"), p.accept("no", "cycle"):
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER SEQUENCE is supported only with RESTART and OWNED BY").
				WithPosition(charPos(p.src, p.peek().Off))
		}
	}
	return s, nil
}

// ownedBy parses the rest of OWNED BY: NONE, or [schema.]table.column.
func (p *stmtParser) ownedBy() (*OwnedBy, error) {
	if p.accept("none") {
		return &OwnedBy{}, nil
	}
	var parts []string
	for {
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		parts = append(parts, n)
		if !p.acceptOp(".") {
			break
		}
	}
	switch len(parts) {
	case 1:
		return nil, pgerr.New(pgerr.SyntaxError, "invalid OWNED BY option").
			WithHint("Specify OWNED BY table.column or OWNED BY NONE.")
	case 2:
		return &OwnedBy{Table: ObjectName{Name: parts[0]}, Column: parts[1]}, nil
	}
	// database.schema.table.column: the database must be weir's, and
	// more names are 42601, as PostgreSQL's makeRangeVarFromNameList
	// and RangeVarGetRelid say (with no position).
	k := len(parts)
	switch {
	case k > 4:
		return nil, pgerr.New(pgerr.SyntaxError, "improper relation name (too many dotted names): %s", strings.Join(parts[:k-1], "."))
	case k == 4 && parts[0] != DatabaseName:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s\"", strings.Join(parts[:3], "."))
	}
	return &OwnedBy{Table: ObjectName{Schema: parts[k-3], Name: parts[k-2]}, Column: parts[k-1]}, nil
}
