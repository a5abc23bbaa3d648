package sql

import "github.com/weirdb/weir/internal/pgerr"

// ForeignKeyDef is a FOREIGN KEY constraint as written: a column's
// REFERENCES or a table's FOREIGN KEY (...) REFERENCES, in CREATE TABLE
// or ALTER TABLE ... ADD.
type ForeignKeyDef struct {
	// Name is the constraint's name ("" when none was given).
	Name string
	// Cols are the referencing columns, RefCols the referenced ones (nil
	// for the referenced table's primary key).
	Cols    []string
	Ref     ObjectName
	RefCols []string
	// Match is "simple" (the default) or "full".
	Match string
	// OnUpdate and OnDelete are the actions as pg_constraint codes them:
	// 'a' NO ACTION (the default), 'r' RESTRICT, 'c' CASCADE, 'n' SET
	// NULL, 'd' SET DEFAULT. DeleteSetCols is ON DELETE SET NULL's or
	// SET DEFAULT's column list (nil when none).
	OnUpdate, OnDelete byte
	DeleteSetCols      []string
	// NotValid is ALTER TABLE's NOT VALID: the stored rows are not
	// checked (CREATE TABLE's is accepted and ignored).
	NotValid bool
	// Deferrable and Deferred are DEFERRABLE and INITIALLY DEFERRED
	// (INITIALLY DEFERRED alone implies DEFERRABLE).
	Deferrable, Deferred bool
	// attrs are the constraint attributes seen so far (attrDeferrable,
	// ...), for PostgreSQL's errors on clauses that conflict.
	attrs uint8
	// column is set for a column constraint, whose attributes
	// PostgreSQL checks one by one (transformConstraintAttrs) rather
	// than as the table constraint's ConstraintAttributeSpec.
	column bool
	// Pos is the character position of the constraint, for errors.
	Pos int
}

// references parses what follows REFERENCES in a column or table
// constraint into fk: the referenced table, its optional column list,
// MATCH, the ON UPDATE and ON DELETE actions in either order, and the
// constraint's attributes ([NOT] DEFERRABLE, INITIALLY DEFERRED |
// IMMEDIATE). NOT VALID may follow a table constraint, as in
// PostgreSQL, and means something only with alter (CREATE TABLE's table
// is empty); a column constraint has none in PostgreSQL's grammar
// (42601 at VALID).
func (p *stmtParser) references(fk *ForeignKeyDef, alter bool) error {
	ref, err := p.objectName()
	if err != nil {
		return err
	}
	fk.Ref = ref
	if t := p.peek(); t.Kind == TOp && t.Val == "(" {
		if fk.RefCols, err = p.nameList(); err != nil {
			return err
		}
	}
	fk.Match, fk.OnUpdate, fk.OnDelete = "simple", 'a', 'a'
	if at := p.peek(); p.accept("match") {
		switch {
		case p.accept("full"):
			fk.Match = "full"
		case p.accept("simple"):
		case p.accept("partial"):
			return pgerr.New(pgerr.FeatureNotSupported, "MATCH PARTIAL not yet implemented").WithPosition(charPos(p.src, at.Off))
		default:
			return p.errHere()
		}
	}
	var update, del bool
	for p.word(0) == "on" && (p.word(1) == "update" && !update || p.word(1) == "delete" && !del) {
		at := p.peek()
		isDelete := p.word(1) == "delete"
		p.pos += 2
		action, cols, err := p.keyAction()
		if err != nil {
			return err
		}
		if isDelete {
			del = true
			fk.OnDelete, fk.DeleteSetCols = action, cols
			continue
		}
		update = true
		if cols != nil {
			what := "SET NULL"
			if action == 'd' {
				what = "SET DEFAULT"
			}
			return pgerr.New(pgerr.FeatureNotSupported, "a column list with %s is only supported for ON DELETE actions", what).WithPosition(charPos(p.src, at.Off))
		}
		fk.OnUpdate = action
	}
	if p.word(0) == "on" {
		// A second ON DELETE or ON UPDATE, or neither: PostgreSQL's
		// grammar stops at the word after ON.
		p.pos++
		return p.errHere()
	}
	for {
		switch {
		case p.atDeferrability():
			if err := p.deferrability(fk); err != nil {
				return err
			}
		case p.word(0) == "not" && p.word(1) == "valid":
			if fk.column {
				p.pos++
				return p.errHere()
			}
			p.pos += 2
			fk.NotValid = alter
		default:
			return nil
		}
	}
}

// The constraint attributes a foreign key's definition has seen.
const (
	attrDeferrable uint8 = 1 << iota
	attrNotDeferrable
	attrInitiallyDeferred
	attrInitiallyImmediate
)

// deferrability parses one of DEFERRABLE, NOT DEFERRABLE, INITIALLY
// DEFERRED and INITIALLY IMMEDIATE at the cursor into fk, with
// PostgreSQL's errors (42601, at the clause) for one that conflicts with
// those before it: a column constraint's clauses as
// transformConstraintAttrs checks them, a table constraint's as the
// grammar's ConstraintAttributeSpec does.
func (p *stmtParser) deferrability(fk *ForeignKeyDef) error {
	at := p.peek()
	var attr uint8
	switch {
	case p.accept("deferrable"):
		attr = attrDeferrable
	case p.accept("not", "deferrable"):
		attr = attrNotDeferrable
	case p.accept("initially", "deferred"):
		attr = attrInitiallyDeferred
	default:
		p.pos += 2
		attr = attrInitiallyImmediate
	}
	fail := func(msg string) error {
		return pgerr.New(pgerr.SyntaxError, "%s", msg).WithPosition(charPos(p.src, at.Off))
	}
	const deferrability = attrDeferrable | attrNotDeferrable
	const initially = attrInitiallyDeferred | attrInitiallyImmediate
	seen := fk.attrs
	fk.attrs |= attr
	if fk.column {
		switch {
		case attr&deferrability != 0 && seen&deferrability != 0:
			return fail("multiple DEFERRABLE/NOT DEFERRABLE clauses not allowed")
		case attr&initially != 0 && seen&initially != 0:
			return fail("multiple INITIALLY IMMEDIATE/DEFERRED clauses not allowed")
		}
	}
	switch all := fk.attrs; {
	case all&attrNotDeferrable != 0 && all&attrInitiallyDeferred != 0:
		return fail("constraint declared INITIALLY DEFERRED must be DEFERRABLE")
	case all&deferrability == deferrability || all&initially == initially:
		return fail("conflicting constraint properties")
	}
	fk.Deferrable = fk.attrs&(attrDeferrable|attrInitiallyDeferred) != 0
	fk.Deferred = fk.attrs&attrInitiallyDeferred != 0
	return nil
}

// keyAction parses a referential action: NO ACTION, RESTRICT, CASCADE,
// SET NULL [(cols)] or SET DEFAULT [(cols)].
func (p *stmtParser) keyAction() (byte, []string, error) {
	switch {
	case p.accept("no", "action"):
		return 'a', nil, nil
	case p.accept("restrict"):
		return 'r', nil, nil
	case p.accept("cascade"):
		return 'c', nil, nil
	case p.accept("set", "null"), p.accept("set", "default"):
		action := byte('n')
		if p.toks[p.pos-1].Val == "default" {
			action = 'd'
		}
		if t := p.peek(); t.Kind == TOp && t.Val == "(" {
			cols, err := p.nameList()
			return action, cols, err
		}
		return action, nil, nil
	}
	return 0, nil, p.errHere()
}

// foreignKey parses FOREIGN KEY (cols) REFERENCES ... at the cursor, a
// table constraint named name ("" for none) starting at character pos.
func (p *stmtParser) foreignKey(name string, pos int, alter bool) (ForeignKeyDef, error) {
	fk := ForeignKeyDef{Name: name, Pos: pos}
	p.pos += 2
	cols, err := p.nameList()
	if err != nil {
		return fk, err
	}
	fk.Cols = cols
	if err := p.expect("references"); err != nil {
		return fk, err
	}
	return fk, p.references(&fk, alter)
}
