package sql

import (
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// Rename is ALTER TABLE | VIEW | MATERIALIZED VIEW | SOURCE | SINK | SEQUENCE | INDEX
// [IF EXISTS] name RENAME TO new_name.
type Rename struct {
	Kind     string // as in Drop.Kind: "table", "view", "materialized view", "source", "sink", "sequence", "index"
	Name     ObjectName
	NewName  string
	IfExists bool
}

// Comment is COMMENT ON TABLE | VIEW | MATERIALIZED VIEW | SOURCE | SINK
// name IS 'text' | NULL, or COMMENT ON COLUMN relation.column IS ...
type Comment struct {
	Kind   string // as in Drop.Kind, or "column"
	Name   ObjectName
	Column string // for "column"
	// Text is the comment; "" (or IS NULL) removes it, as in PostgreSQL.
	Text string
}

// SetParallelism is ALTER MATERIALIZED VIEW | SINK name SET PARALLELISM
// { = | TO } n.
type SetParallelism struct {
	Kind string // "materialized view" or "sink"
	Name ObjectName
	N    string
}

// AlterTable is ALTER TABLE [IF EXISTS] [ONLY] name with column actions:
//
//	ADD [COLUMN] [IF NOT EXISTS] column_definition
//	ADD [CONSTRAINT name] CHECK (expr) [NO INHERIT] [NOT VALID]
//	ADD [CONSTRAINT name] FOREIGN KEY (cols) REFERENCES t [(cols)] ... [NOT VALID]
//	VALIDATE CONSTRAINT name
//	ALTER CONSTRAINT name [[NOT] DEFERRABLE] [INITIALLY DEFERRED | IMMEDIATE]
//	DROP [COLUMN] [IF EXISTS] column [RESTRICT | CASCADE]
//	RENAME [COLUMN] column TO new_name
//	ALTER [COLUMN] column SET DEFAULT expr | DROP DEFAULT | SET NOT NULL | DROP NOT NULL
//	ALTER [COLUMN] column DROP EXPRESSION [IF EXISTS]
//	ALTER [COLUMN] column ADD GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY [( seq_options )]
//	ALTER [COLUMN] column [SET DATA] TYPE type [COLLATE collation] [USING expr]
//
// Several actions, comma separated, make one statement (RENAME stands
// alone, as in PostgreSQL's grammar): the first is held by the
// AlterTable itself and the others, in order, by More.
type AlterTable struct {
	Name     ObjectName
	IfExists bool
	// Kind is the word after ALTER: "" for TABLE, "view" or
	// "materialized view" (whose only column action is RENAME COLUMN,
	// which PostgreSQL runs on any of the three whatever the word).
	Kind string
	// Action is "add column", "drop column", "rename column", "set
	// default", "drop default", "set not null", "drop not null", "set
	// type", "drop expression", "add identity", "add check", "add
	// foreign key", "add primary key",
	// "validate constraint", "alter constraint" or "drop constraint".
	Action string
	// Column is the column acted on; for ADD, Def.Name; for DROP,
	// VALIDATE CONSTRAINT and ALTER CONSTRAINT, the constraint's name.
	Column string
	// Def is ADD's column definition.
	Def ColumnDef
	// NewName is RENAME's new column name.
	NewName string
	// Default is SET DEFAULT's expression, bridged.
	Default string
	// IfColumn is ADD's IF NOT EXISTS or DROP's (column, constraint or
	// expression) IF EXISTS.
	IfColumn bool
	Cascade  bool
	// Type is SET TYPE's new type, and Using its USING expression as
	// written ("" when none: the column is cast to Type by assignment),
	// which starts at character UsingPos (1-based) of the statement.
	Type     TypeName
	Using    string
	UsingPos int
	// Collation is SET TYPE's COLLATE name ("" for none, or for the
	// type's default), and CollateErr the error its check found (nil
	// when none): PostgreSQL reports it once the column is found.
	Collation  string
	CollateErr error
	// Checks are ADD CONSTRAINT's CHECK constraint, or the CHECK
	// constraints of ADD COLUMN's column.
	Checks []CheckDef
	// ForeignKeys are ADD CONSTRAINT's FOREIGN KEY constraint ("add
	// foreign key"), or the REFERENCES of ADD COLUMN's column.
	ForeignKeys []ForeignKeyDef
	// Key is ADD PRIMARY KEY's columns (Column holds the constraint's
	// name, "" when none is given).
	Key []string
	// KeyPos is where PRIMARY KEY starts (1-based character).
	KeyPos int
	// Identity is ADD GENERATED's "always" or "default"; IdentitySeq
	// its SEQUENCE NAME (Name "" when not given) and IdentityStart its
	// START (1 when not given).
	Identity      string
	IdentitySeq   ObjectName
	IdentityStart int64
	// Deferrable and Deferred are ALTER CONSTRAINT's attributes: no
	// attribute given is NOT DEFERRABLE INITIALLY IMMEDIATE, as in
	// PostgreSQL's grammar.
	Deferrable, Deferred bool
	// More holds the actions after the first, each with Name and
	// IfExists as the first's and no More of its own.
	More []*AlterTable
}

// AlterOwner is ALTER TABLE | VIEW | MATERIALIZED VIEW | SEQUENCE
// [IF EXISTS] name OWNER TO role, which pg_dump writes for every
// relation.
type AlterOwner struct {
	Kind     string // "table", "view", "materialized view", "sequence", "schema" or "function"
	Name     ObjectName
	IfExists bool
	// Role is the new owner's name, or "current_user", "current_role"
	// or "session_user" (unquoted) for those.
	Role string
	// Special is set when Role is one of the unquoted keywords.
	Special bool
	// Func is the function of ALTER FUNCTION (Name is its name).
	Func *FuncRef
}

func (*AlterOwner) stmt() {}

// ownerTo parses the role after OWNER TO.
func (p *stmtParser) ownerTo(kind string, n ObjectName, ifExists bool) (Stmt, error) {
	st := &AlterOwner{Kind: kind, Name: n, IfExists: ifExists}
	switch w := p.word(0); w {
	case "current_user", "current_role", "session_user":
		p.pos++
		st.Role, st.Special = w, true
	default:
		r, err := p.name()
		if err != nil {
			return nil, err
		}
		st.Role = r
	}
	if err := p.expectEnd(); err != nil {
		return nil, err
	}
	return st, nil
}

func (*AlterTable) stmt()     {}
func (*Rename) stmt()         {}
func (*Comment) stmt()        {}
func (*SetParallelism) stmt() {}

// alter parses the ALTER statements: ALTER SYSTEM, and renames.
func (p *stmtParser) alter() (Stmt, error) {
	if p.word(1) == "system" {
		return p.alterSystem()
	}
	if p.word(1) == "sequence" {
		p.pos += 2
		return p.alterSequence()
	}
	if p.word(1) == "index" {
		// ALTER INDEX [IF EXISTS] name RENAME TO new_name; its other
		// forms (SET, ATTACH PARTITION, ...) are not supported.
		start := p.pos
		p.pos += 2
		r := &Rename{Kind: "index", IfExists: p.accept("if", "exists")}
		n, err := p.objectName()
		if err != nil || !p.accept("rename", "to") {
			p.pos = start
			return nil, p.unsupportedStmt()
		}
		r.Name = n
		if r.NewName, err = p.name(); err != nil {
			return nil, err
		}
		return r, nil
	}
	if p.word(1) == "schema" && p.word(3) == "owner" && p.word(4) == "to" {
		// ALTER SCHEMA name OWNER TO role, which pg_dump writes for
		// every schema it creates.
		p.pos += 2
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		p.pos += 2
		return p.ownerTo("schema", ObjectName{Name: n}, false)
	}
	if p.word(1) == "function" {
		// ALTER FUNCTION f(args) OWNER TO role, which pg_dump writes
		// for every function.
		start := p.pos
		p.pos += 2
		r, err := p.funcRef()
		if err != nil {
			return nil, err
		}
		if !p.accept("owner", "to") {
			p.pos = start
			return nil, p.unsupportedStmt()
		}
		st, err := p.ownerTo("function", r.Name, false)
		if err != nil {
			return nil, err
		}
		st.(*AlterOwner).Func = &r
		return st, nil
	}
	start := p.pos
	p.pos++
	kind, ok := p.relationKind()
	if !ok {
		p.pos = start
		return nil, p.unsupportedStmt()
	}
	r := &Rename{Kind: kind, IfExists: p.accept("if", "exists")}
	// ALTER TABLE ONLY name (pg_dump's form): weir has no inheritance,
	// so ONLY changes nothing: every action that works without it
	// works with it.
	if kind == "table" && p.word(1) != "" {
		p.accept("only")
	}
	n, err := p.objectName()
	if err != nil {
		return nil, err
	}
	r.Name = n
	if kind != "sink" && kind != "source" && p.accept("owner", "to") {
		return p.ownerTo(kind, n, r.IfExists)
	}
	if !r.IfExists && (kind == "materialized view" || kind == "sink") && p.accept("resume") {
		return &AlterJob{Kind: kind, Name: n, Action: "resume"}, nil
	}
	if !r.IfExists && p.accept("set", "parallelism") {
		if !p.accept("to") && !p.acceptOp("=") {
			return nil, p.errHere()
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		return &SetParallelism{Kind: kind, Name: n, N: v}, nil
	}
	if kind == "table" && p.word(0) == "add" && (p.word(1) == "unique" || p.word(1) == "constraint" && p.word(3) == "unique") {
		return p.addUnique(n)
	}
	if kind == "table" && !p.accept("rename", "to") {
		if at, ok, err := p.alterTable(r.Name, r.IfExists); ok || err != nil {
			return at, err
		}
	} else if kind == "table" {
		p.pos -= 2
	}
	if (kind == "view" || kind == "materialized view") && p.word(0) == "rename" && p.word(1) != "to" && p.word(1) != "constraint" {
		// ALTER VIEW | MATERIALIZED VIEW name RENAME [COLUMN] a TO b.
		p.pos++
		p.accept("column")
		at := &AlterTable{Name: n, IfExists: r.IfExists, Kind: kind, Action: "rename column"}
		if p.word(0) == "to" {
			return nil, p.errHere() // TO is reserved: no column's name
		}
		if at.Column, err = p.name(); err != nil {
			return nil, err
		}
		if err := p.expect("to"); err != nil {
			return nil, err
		}
		if at.NewName, err = p.name(); err != nil {
			return nil, err
		}
		return at, nil
	}
	if !p.accept("rename", "to") {
		w := p.word(0)
		if w == "rename" && p.word(1) != "column" && p.word(1) != "constraint" && p.word(2) != "to" {
			p.pos++ // RENAME without TO: as PostgreSQL, a syntax error after it
			return nil, p.errHere()
		}
		if pgAlterActions[w] {
			// A form of ALTER PostgreSQL has and weir does not (ADD
			// COLUMN, OWNER TO, ...): 0A000, not a syntax error.
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER %s ... %s is not supported", strings.ToUpper(kind), strings.ToUpper(w)).
				WithPosition(charPos(p.src, p.peek().Off))
		}
		return nil, p.errHere()
	}
	if r.NewName, err = p.name(); err != nil {
		return nil, err
	}
	return r, nil
}

// alterTable parses the column actions of ALTER TABLE; ok is false, with
// the cursor unmoved, for any other action.
func (p *stmtParser) alterTable(name ObjectName, ifExists bool) (st *AlterTable, ok bool, err error) {
	p.unpositioned = true
	first, ok, err := p.alterAction(name, ifExists, true)
	if !ok || err != nil {
		return first, ok, err
	}
	for first.Action != "rename column" && p.acceptOp(",") {
		at, ok, err := p.alterAction(name, ifExists, false)
		if err != nil {
			return nil, true, err
		}
		if !ok {
			if pgAlterActions[p.word(0)] && p.word(0) != "rename" {
				return nil, true, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... %s is not supported", strings.ToUpper(p.word(0))).
					WithPosition(charPos(p.src, p.peek().Off))
			}
			return nil, true, p.errHere()
		}
		first.More = append(first.More, at)
	}
	if err := p.expectEnd(); err != nil {
		return nil, true, err
	}
	return first, true, nil
}

// alterAction parses one column action of ALTER TABLE; ok is false, with
// the cursor unmoved, for any other action. RENAME is taken only as the
// first action.
func (p *stmtParser) alterAction(name ObjectName, ifExists, first bool) (st *AlterTable, ok bool, err error) {
	at := &AlterTable{Name: name, IfExists: ifExists}
	start := p.pos
	switch {
	case p.word(0) == "add" && (p.word(1) == "check" || p.word(1) == "constraint" && p.word(3) == "check"):
		p.pos++
		name := ""
		if p.accept("constraint") {
			if name, err = p.name(); err != nil {
				return nil, true, err
			}
		}
		p.pos++
		c, err := p.checkExpr(name, false, false)
		if err != nil {
			return nil, true, err
		}
		at.Action = "add check"
		at.Checks = []CheckDef{c}
	case p.word(0) == "add" && (p.word(1) == "foreign" && p.word(2) == "key" ||
		p.word(1) == "constraint" && p.word(3) == "foreign" && p.word(4) == "key"):
		p.pos++
		at0 := p.peek()
		name := ""
		if p.accept("constraint") {
			if name, err = p.name(); err != nil {
				return nil, true, err
			}
		}
		fk, err := p.foreignKey(name, charPos(p.src, at0.Off), true)
		if err != nil {
			return nil, true, err
		}
		at.Action = "add foreign key"
		at.ForeignKeys = []ForeignKeyDef{fk}
	case p.word(0) == "add" && (p.word(1) == "primary" && p.word(2) == "key" ||
		p.word(1) == "constraint" && p.word(3) == "primary" && p.word(4) == "key"):
		p.pos++
		if p.accept("constraint") {
			if at.Column, err = p.name(); err != nil {
				return nil, true, err
			}
		}
		at.KeyPos = charPos(p.src, p.peek().Off)
		p.pos += 2
		if p.peek().Kind != TOp || p.peek().Val != "(" {
			return nil, true, p.errHere()
		}
		if at.Key, err = p.nameList(); err != nil {
			return nil, true, err
		}
		at.Action = "add primary key"
	case p.word(0) == "alter" && p.word(1) == "constraint":
		p.pos += 2
		at.Action = "alter constraint"
		if at.Column, err = p.name(); err != nil {
			return nil, true, err
		}
		var fk ForeignKeyDef
		for p.atDeferrability() {
			if err := p.deferrability(&fk); err != nil {
				return nil, true, err
			}
		}
		if p.word(0) == "not" && p.word(1) == "valid" {
			return nil, true, pgerr.New(pgerr.FeatureNotSupported, "FOREIGN KEY constraints cannot be marked NOT VALID")
		}
		at.Deferrable, at.Deferred = fk.Deferrable, fk.Deferred
	case p.word(0) == "set" && (p.word(1) == "logged" || p.word(1) == "unlogged"):
		at.Action = "set " + p.word(1)
		p.pos += 2
	case p.word(0) == "validate" && p.word(1) == "constraint":
		p.pos += 2
		at.Action = "validate constraint"
		if at.Column, err = p.name(); err != nil {
			return nil, true, err
		}
	case p.word(0) == "add":
		switch p.word(1) {
		case "constraint", "primary", "unique", "check", "foreign", "exclude":
			return nil, false, nil
		}
		p.pos++
		p.accept("column")
		at.Action = "add column"
		at.IfColumn = p.accept("if", "not", "exists")
		ct := &CreateTable{Name: name}
		elemAt := p.peek()
		if err := p.tableElement(ct, "table"); err != nil {
			return nil, true, err
		}
		if len(ct.Columns) != 1 || ct.Watermark != nil {
			p.pos = start
			return nil, false, nil
		}
		if ct.PrimaryKey != nil {
			return nil, true, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN ... PRIMARY KEY is not supported").
				WithHint("A table's primary key is declared with CREATE TABLE.").WithPosition(charPos(p.src, elemAt.Off))
		}
		if ct.Uniques != nil {
			return nil, true, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN ... UNIQUE is not supported").
				WithHint("Add the column, then CREATE UNIQUE INDEX on it.").WithPosition(charPos(p.src, elemAt.Off))
		}
		at.Def = ct.Columns[0]
		at.Column = at.Def.Name
		at.Checks = ct.Checks
		at.ForeignKeys = ct.ForeignKeys
	case p.word(0) == "drop":
		// DROP [COLUMN] name or DROP CONSTRAINT name (in Column), then
		// [IF EXISTS] ... [CASCADE | RESTRICT] alike.
		p.pos++
		at.Action = "drop column"
		if p.accept("constraint") {
			at.Action = "drop constraint"
		} else {
			p.accept("column")
		}
		at.IfColumn = p.accept("if", "exists")
		if at.Column, err = p.name(); err != nil {
			return nil, true, err
		}
		if p.accept("cascade") {
			at.Cascade = true
		} else {
			p.accept("restrict")
		}
	case first && p.word(0) == "rename" && p.word(1) != "constraint":
		p.pos++
		p.accept("column")
		at.Action = "rename column"
		if p.word(0) == "to" {
			return nil, true, p.errHere() // TO is reserved: no column's name
		}
		if at.Column, err = p.name(); err != nil {
			return nil, true, err
		}
		if err := p.expect("to"); err != nil {
			return nil, true, err
		}
		if at.NewName, err = p.name(); err != nil {
			return nil, true, err
		}
	case p.word(0) == "alter":
		p.pos++
		p.accept("column")
		if at.Column, err = p.name(); err != nil {
			return nil, true, err
		}
		switch {
		case p.accept("set", "default"):
			at.Action = "set default"
			start := p.pos
			if at.Default, _, err = p.expr(p.exprEnd(false)); err != nil {
				return nil, true, err
			}
			if err := p.noParams(start, p.pos); err != nil {
				return nil, true, err
			}
		case p.accept("drop", "default"):
			at.Action = "drop default"
		case p.accept("add", "generated", "always", "as", "identity"):
			at.Action, at.Identity = "add identity", "always"
			if err := p.identityOptions(at); err != nil {
				return nil, true, err
			}
		case p.accept("add", "generated", "by", "default", "as", "identity"):
			at.Action, at.Identity = "add identity", "default"
			if err := p.identityOptions(at); err != nil {
				return nil, true, err
			}
		case p.accept("drop", "expression"):
			at.Action = "drop expression"
			at.IfColumn = p.accept("if", "exists")
		case p.accept("set", "not", "null"):
			at.Action = "set not null"
		case p.accept("drop", "not", "null"):
			at.Action = "drop not null"
		case p.accept("type") || p.accept("set", "data", "type"):
			at.Action = "set type"
			tn, next, err := parseTypeAt(p.src, p.toks, p.pos)
			if err != nil {
				return nil, true, err
			}
			at.Type, p.pos = tn, next
			if p.accept("collate") {
				cn, err := p.objectName()
				if err != nil {
					return nil, true, err
				}
				// PostgreSQL's errors here have no position.
				at.CollateErr = columnCollation(cn, tn.T, 0)
				if at.CollateErr == nil && cn.Name != "default" {
					at.Collation = cn.Name
				}
			}
			if p.accept("using") {
				start := p.peek()
				from := p.pos
				if _, _, err = p.expr(p.exprEnd(false)); err != nil {
					return nil, true, err
				}
				// PostgreSQL analyses USING with the statement's text.
				p.unpositioned = false
				err := p.noParams(from, p.pos)
				p.unpositioned = true
				if err != nil {
					return nil, true, err
				}
				at.Using = strings.TrimSpace(p.src[start.Off:p.peek().Off])
				at.UsingPos = charPos(p.src, start.Off)
			}
		default:
			if w := p.word(0); w == "set" || w == "drop" || w == "add" || w == "reset" {
				return nil, true, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ALTER COLUMN ... %s is not supported", strings.ToUpper(w)).
					WithPosition(charPos(p.src, p.peek().Off))
			}
			return nil, true, p.errHere()
		}
	default:
		return nil, false, nil
	}
	return at, true, nil
}

// pgAlterActions are the words that begin an action of PostgreSQL's ALTER
// TABLE | VIEW | MATERIALIZED VIEW beyond RENAME TO.
var pgAlterActions = map[string]bool{
	"add": true, "drop": true, "alter": true, "rename": true, "set": true, "reset": true,
	"owner": true, "enable": true, "disable": true, "attach": true, "detach": true,
	"cluster": true, "inherit": true, "no": true, "replica": true, "validate": true,
	"of": true, "not": true, "force": true, "depends": true,
}

// relationKind parses the words naming a kind of relation.
func (p *stmtParser) relationKind() (string, bool) {
	switch {
	case p.accept("table"):
		return "table", true
	case p.accept("view"):
		return "view", true
	case p.accept("materialized", "view"):
		return "materialized view", true
	case p.accept("source"):
		return "source", true
	case p.accept("sink"):
		return "sink", true
	}
	return "", false
}

// comment parses COMMENT ON ... IS 'text' | NULL.
func (p *stmtParser) comment() (Stmt, error) {
	p.pos++
	if err := p.expect("on"); err != nil {
		return nil, err
	}
	c := &Comment{}
	if p.accept("column") {
		// [schema.]relation.column
		c.Kind = "column"
		parts := []string{}
		for {
			n, err := p.name()
			if err != nil {
				return nil, err
			}
			parts = append(parts, n)
			if len(parts) == 3 || !p.acceptOp(".") {
				break
			}
		}
		switch len(parts) {
		case 2:
			c.Name, c.Column = ObjectName{Name: parts[0]}, parts[1]
		case 3:
			c.Name, c.Column = ObjectName{Schema: parts[0], Name: parts[1]}, parts[2]
		default:
			return nil, p.errHere()
		}
	} else {
		if p.word(0) == "function" {
			return nil, p.unsupported("COMMENT ON FUNCTION is")
		}
		kind, ok := p.relationKind()
		if !ok {
			return nil, p.errHere()
		}
		c.Kind = kind
		n, err := p.objectName()
		if err != nil {
			return nil, err
		}
		c.Name = n
	}
	if err := p.expect("is"); err != nil {
		return nil, err
	}
	if p.accept("null") {
		return c, nil
	}
	t := p.peek()
	if t.Kind != TString {
		return nil, p.errHere()
	}
	if t.Err != nil {
		return nil, t.Err
	}
	p.pos++
	c.Text = t.Val
	return c, nil
}

// addUnique parses ALTER TABLE name ADD [CONSTRAINT c] UNIQUE (cols),
// which creates the constraint's unique index.
func (p *stmtParser) addUnique(rel ObjectName) (Stmt, error) {
	p.pos++
	ci := &CreateIndex{Rel: rel, Unique: true, Constraint: true}
	if p.accept("constraint") {
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		ci.Name = n
	}
	if err := p.expect("unique"); err != nil {
		return nil, err
	}
	ci.NullsNotDistinct = p.nullsNotDistinct()
	if p.peek().Kind != TOp {
		return nil, p.unsupported("UNIQUE " + upper(p.word(0)) + " is")
	}
	cols, err := p.nameList()
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		ci.Cols = append(ci.Cols, IndexColumn{Name: c})
	}
	if p.peek().Kind == TOp && p.peek().Val == "," {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD UNIQUE together with other actions is not supported").
			WithPosition(charPos(p.src, p.peek().Off)).
			WithHint("Run each action as an ALTER TABLE of its own.")
	}
	if err := p.indexDeferrability(false); err != nil {
		return nil, err
	}
	if !p.atEnd() {
		return nil, p.unsupported(upper(p.word(0)) + " in a UNIQUE constraint is")
	}
	return ci, nil
}

// identityOptions parses the optional ( sequence options ) of ALTER
// COLUMN ... ADD GENERATED ... AS IDENTITY: SEQUENCE NAME, START, and
// the options that keep the defaults as CREATE SEQUENCE takes them.
func (p *stmtParser) identityOptions(at *AlterTable) error {
	at.IdentityStart = 1
	if !p.acceptOp("(") {
		return nil
	}
	for !p.acceptOp(")") {
		switch {
		case p.accept("sequence", "name"):
			n, err := p.objectName()
			if err != nil {
				return err
			}
			at.IdentitySeq = n
		case p.accept("start"):
			p.accept("with")
			v, err := p.seqNumber()
			if err != nil {
				return err
			}
			at.IdentityStart = v
		case p.accept("increment"):
			p.accept("by")
			if err := p.seqDefault(1, "INCREMENT"); err != nil {
				return err
			}
		case p.accept("minvalue"):
			if err := p.seqDefault(1, "MINVALUE"); err != nil {
				return err
			}
		case p.accept("cache"):
			if err := p.seqDefault(1, "CACHE"); err != nil {
				return err
			}
		case p.accept("no", "minvalue"), p.accept("no", "maxvalue"), p.accept("no", "cycle"):
		default:
			if p.atEnd() {
				return p.errHere()
			}
			return pgerr.New(pgerr.FeatureNotSupported, "this sequence option is not supported").
				WithHint("Sequences count up by 1 from START to the maximum of their type.").
				WithPosition(charPos(p.src, p.peek().Off))
		}
	}
	return nil
}
