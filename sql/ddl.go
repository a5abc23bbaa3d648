package sql

import (
	"maps"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

func (p *stmtParser) create() (Stmt, error) {
	p.pos++
	if p.word(0) == "unlogged" {
		switch {
		case p.word(1) == "table":
			p.pos += 2
			st, err := p.createTable(false)
			if ct, ok := st.(*CreateTable); ok {
				ct.Unlogged = true
			}
			return st, err
		case p.word(1) == "materialized" && p.word(2) == "view":
			return nil, pgerr.New(pgerr.FeatureNotSupported, "materialized views cannot be unlogged")
		case p.word(1) == "view":
			return nil, pgerr.New(pgerr.SyntaxError, "views cannot be unlogged because they do not have storage")
		}
	}
	temp, err := p.persistence()
	if err != nil {
		return nil, err
	}
	orReplace := false
	if !temp && p.word(0) == "or" && p.word(1) == "replace" {
		p.pos += 2
		orReplace = true
		if temp, err = p.persistence(); err != nil {
			return nil, err
		}
		if !temp && p.accept("function") {
			return p.createFunction(true)
		}
		if err := p.unsupportedObject("CREATE OR REPLACE"); err != nil {
			return nil, err
		}
	} else if !temp && p.accept("type") {
		return p.createType()
	} else if !temp && p.accept("domain") {
		return p.createDomain()
	} else if !temp && p.accept("function") {
		return p.createFunction(false)
	} else if err := p.unsupportedObject("CREATE"); err != nil {
		return nil, err
	}
	if temp && !orReplace && p.accept("table") {
		return p.createTable(true)
	}
	if temp && !orReplace && p.accept("sequence") {
		st, err := p.createSequence()
		if err != nil {
			return nil, err
		}
		st.(*CreateSequence).Temp = true
		return st, nil
	}
	if temp && !p.accept("view") {
		// Only a view follows, as PostgreSQL's grammar has it.
		return nil, p.errHere()
	}
	if temp {
		return p.createView(&CreateView{OrReplace: orReplace, Temp: true})
	}
	switch {
	case orReplace:
	case p.accept("table"):
		return p.createTable(false)
	case p.accept("source"):
		return p.createSource()
	case p.accept("sink"):
		return p.createSink()
	case p.word(0) == "role" || p.word(0) == "user" || p.word(0) == "group":
		return p.createRole()
	case p.accept("sequence"):
		return p.createSequence()
	case p.word(0) == "index" || p.word(0) == "unique" && p.word(1) == "index":
		return p.createIndex()
	case p.accept("schema"):
		// CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role] or
		// CREATE SCHEMA [IF NOT EXISTS] AUTHORIZATION role, the schema
		// then named after the role.
		s := &CreateSchema{IfNotExists: p.accept("if", "not", "exists")}
		if p.peek().Kind != TIdent || p.word(0) != "authorization" {
			n, err := p.name()
			if err != nil {
				return nil, err
			}
			s.Name = n
		}
		if p.accept("authorization") {
			switch w := p.word(0); w {
			case "current_user", "current_role", "session_user":
				p.pos++
				s.Owner, s.OwnerSpecial = w, true
			default:
				n, err := p.name()
				if err != nil {
					return nil, err
				}
				s.Owner = n
			}
			if s.Name == "" {
				s.Name = s.Owner
				s.NameFromRole = true
			}
		}
		if !p.atEnd() {
			if err := p.schemaElements(s); err != nil {
				return nil, err
			}
		}
		return s, nil
	}
	v := &CreateView{OrReplace: orReplace}
	if p.accept("materialized") {
		v.Materialized = true
	}
	if !v.Materialized && p.word(0) == "recursive" && p.word(1) == "view" {
		return nil, p.unsupported("CREATE RECURSIVE VIEW is")
	}
	if !p.accept("view") {
		return nil, p.errHere()
	}
	return p.createView(v)
}

// createIndex parses CREATE [UNIQUE] INDEX [CONCURRENTLY] [[IF NOT
// EXISTS] name] ON [ONLY] rel [USING method] (key [ASC|DESC] [NULLS
// FIRST|LAST], ...) [INCLUDE (col, ...)] [WITH (...)] [WHERE predicate],
// a key being a column, a function call or a parenthesised expression
// (kept as written, for the engine to bind). Operator classes and
// COLLATE are refused with 0A000.
func (p *stmtParser) createIndex() (Stmt, error) {
	ci := &CreateIndex{Unique: p.accept("unique")}
	if err := p.expect("index"); err != nil {
		return nil, err
	}
	p.accept("concurrently")
	ci.IfNotExists = p.accept("if", "not", "exists")
	if p.word(0) != "on" || ci.IfNotExists {
		n, err := p.objectName()
		if err != nil {
			return nil, err
		}
		if n.Schema != "" {
			// PostgreSQL: an index lives in its table's schema.
			return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \".\"").WithPosition(charPos(p.src, p.toks[p.pos-2].Off))
		}
		ci.Name = n.Name
	}
	if err := p.expect("on"); err != nil {
		return nil, err
	}
	p.accept("only")
	rel, err := p.objectName()
	if err != nil {
		return nil, err
	}
	ci.Rel = rel
	if p.accept("using") {
		m, err := p.name()
		if err != nil {
			return nil, err
		}
		ci.Using = m
	}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	for {
		c, err := p.indexKey()
		if err != nil {
			return nil, err
		}
		switch {
		case p.accept("asc"):
		case p.accept("desc"):
			c.Desc = true
		}
		if p.accept("nulls", "first") {
			c.NullsFirst = true
		} else if p.accept("nulls", "last") {
			c.NullsLast = true
		}
		if !p.atEnd() && p.peek().Kind != TOp {
			return nil, p.unsupported(upper(p.word(0)) + " in an index column is")
		}
		ci.Cols = append(ci.Cols, c)
		if p.acceptOp(")") {
			break
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
	if p.accept("include") {
		if ci.Include, err = p.nameList(); err != nil {
			return nil, err
		}
	}
	if p.accept("nulls", "not", "distinct") {
		ci.NullsNotDistinct = true
	} else {
		p.accept("nulls", "distinct")
	}
	if p.accept("with") {
		if ci.With, err = p.options(); err != nil {
			return nil, err
		}
	}
	if p.accept("where") {
		if p.atEnd() {
			return nil, p.errHere()
		}
		first := p.peek()
		end := p.endIndex()
		if err := p.noParams(p.pos, end); err != nil {
			return nil, err
		}
		ci.Where = p.src[first.Off:p.toks[end-1].End]
		ci.WherePos = charPos(p.src, first.Off)
		p.pos = end
	}
	return ci, p.expectEnd()
}

// indexKey parses one key of CREATE INDEX without its ordering: a
// column, a function call f(...) (kept as an expression), or an
// expression in parentheses.
func (p *stmtParser) indexKey() (IndexColumn, error) {
	t := p.peek()
	switch {
	case t.Kind == TOp && t.Val == "(":
		start := p.pos
		text, pos, err := p.parenText()
		if err != nil {
			return IndexColumn{}, err
		}
		if err := p.noParams(start, p.pos); err != nil {
			return IndexColumn{}, err
		}
		return IndexColumn{Expr: text, ExprPos: pos}, nil
	case (t.Kind == TIdent || t.Kind == TQIdent) && p.qualifiedCallAhead():
		for !(p.peek().Kind == TOp && p.peek().Val == "(") {
			p.pos++
		}
		start := p.pos
		if _, _, err := p.parenText(); err != nil {
			if p.pos == start+1 && p.peek().Kind == TOp && p.peek().Val == ")" {
				// f(): a call without arguments.
				p.pos++
			} else {
				return IndexColumn{}, err
			}
		}
		if err := p.noParams(start, p.pos); err != nil {
			return IndexColumn{}, err
		}
		return IndexColumn{Expr: p.src[t.Off:p.toks[p.pos-1].End], ExprPos: charPos(p.src, t.Off)}, nil
	case t.Kind == TIdent || t.Kind == TQIdent:
		p.pos++
		if p.peek().Kind == TOp && p.peek().Val == "." {
			// A qualified name must be a call: PostgreSQL reports
			// the token after the name.
			for p.acceptOp(".") {
				if k := p.peek().Kind; k == TIdent || k == TQIdent {
					p.pos++
				}
			}
			return IndexColumn{}, p.errHere()
		}
		if n := p.peek(); n.Kind == TOp && n.Val != "," && n.Val != ")" {
			// PostgreSQL's grammar: an expression other than a call
			// needs its parentheses.
			return IndexColumn{}, p.errHere()
		}
		return IndexColumn{Name: t.Val}, nil
	}
	return IndexColumn{}, p.errHere()
}

// qualifiedCallAhead reports whether the tokens ahead are a function
// name, possibly qualified (s.f or c.s.f, as pg_dump writes a user
// function), followed by "(": PostgreSQL's func_expr_windowless, which
// an index key may be without parentheses.
func (p *stmtParser) qualifiedCallAhead() bool {
	isName := func(t Token) bool { return t.Kind == TIdent || t.Kind == TQIdent }
	for i := 0; i < 3; i++ {
		if !isName(p.peekAt(2 * i)) {
			return false
		}
		n := p.peekAt(2*i + 1)
		if n.Kind != TOp {
			return false
		}
		switch n.Val {
		case "(":
			return true
		case ".":
		default:
			return false
		}
	}
	return false
}

// nullsNotDistinct parses an optional NULLS [NOT] DISTINCT of a unique
// constraint, reporting NOT DISTINCT.
func (p *stmtParser) nullsNotDistinct() bool {
	if p.accept("nulls", "not", "distinct") {
		return true
	}
	p.accept("nulls", "distinct")
	return false
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func (p *stmtParser) createView(v *CreateView) (Stmt, error) {
	v.IfNotExists = p.accept("if", "not", "exists")
	n, err := p.objectName()
	if err != nil {
		return nil, err
	}
	v.Name = n
	if p.peek().Kind == TOp && p.peek().Val == "(" {
		if v.Columns, err = p.nameList(); err != nil {
			return nil, err
		}
	}
	if p.accept("with") {
		if v.With, err = p.options(); err != nil {
			return nil, err
		}
	}
	if err := p.expect("as"); err != nil {
		return nil, err
	}
	end := p.endIndex()
	if n := end - 3; v.Materialized && n > p.pos && p.toks[n].Kind == TIdent && p.toks[n].Val == "with" &&
		p.toks[n+1].Kind == TIdent && p.toks[n+1].Val == "no" && p.toks[n+2].Kind == TIdent && p.toks[n+2].Val == "data" {
		v.NoData, end = true, n
	}
	end, err = p.trailingWith(end, v.Materialized)
	if err != nil {
		return nil, err
	}
	if p.endsWithEOWC(end) {
		v.EmitOnWindowClose = true
		end -= 4
	}
	start := p.pos
	q, err := p.query(end)
	if err != nil {
		if v.Materialized {
			return nil, p.afterWithData(err, start, end)
		}
		return nil, err
	}
	v.Query = q
	v.QueryText = p.src[p.toks[start].Off:p.toks[end-1].End]
	p.pos = p.endIndex()
	return v, nil
}

func (p *stmtParser) createTable(temp bool) (Stmt, error) {
	ct := &CreateTable{Temp: temp, IfNotExists: p.accept("if", "not", "exists")}
	namePos := charPos(p.src, p.peek().Off)
	n, err := p.objectName()
	if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.FeatureNotSupported && pe.Position == 0 {
		// PostgreSQL places CREATE TABLE's cross-database error.
		return nil, pe.WithPosition(namePos)
	}
	if err != nil {
		return nil, err
	}
	ct.Name, ct.NamePos = n, namePos
	if err := p.onCommit(ct); err != nil {
		return nil, err
	}
	if p.peek().Kind == TOp && p.peek().Val == "(" && (p.peekAt(1).Kind == TIdent || p.peekAt(1).Kind == TQIdent) && p.peekAt(2).Kind == TOp &&
		(p.peekAt(2).Val == "," || p.peekAt(2).Val == ")" && p.word(3) == "as") {
		// CREATE TABLE name (col, ...) AS query: the names of the
		// query's first columns.
		p.pos++
		for {
			n, err := p.name()
			if err != nil {
				return nil, err
			}
			ct.AsColumns = append(ct.AsColumns, n)
			if !p.acceptOp(",") {
				break
			}
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		if p.word(0) != "as" {
			return nil, p.errHere()
		}
	}
	if p.accept("as") {
		end := p.endIndex()
		if n := end - 3; n > p.pos && p.toks[n].Kind == TIdent && p.toks[n].Val == "with" &&
			p.toks[n+1].Kind == TIdent && p.toks[n+1].Val == "no" && p.toks[n+2].Kind == TIdent && p.toks[n+2].Val == "data" {
			ct.NoData, end = true, n
		}
		end, err := p.trailingWith(end, true)
		if err != nil {
			return nil, err
		}
		q, err := p.query(end)
		if err != nil {
			return nil, err
		}
		ct.AsQuery = q
		p.pos = p.endIndex()
		return ct, nil
	}
	if err := p.columnList(ct, "table"); err != nil {
		return nil, err
	}
	var cs connectorSpec
	for !p.atEnd() {
		if p.accept("append", "only") {
			ct.AppendOnly = true
			continue
		}
		// WITHOUT OIDS is PostgreSQL's default and only choice.
		if p.accept("without", "oids") {
			continue
		}
		switch {
		case p.word(0) == "partition" && p.word(1) == "by":
			return nil, p.unsupported("partitioned tables are")
		case p.word(0) == "inherits" && p.peekAt(1).Kind == TOp:
			return nil, p.unsupported("table inheritance is")
		case p.word(0) == "tablespace" && p.peekAt(1).Kind != TEOF:
			return nil, p.unsupported("TABLESPACE is")
		case p.word(0) == "using" && p.peekAt(1).Kind != TEOF:
			return nil, p.unsupported("a table access method is")
		case p.word(0) == "on" && p.word(1) == "commit" && ct.OnCommit == "":
			if err := p.onCommit(ct); err != nil {
				return nil, err
			}
			continue
		}
		ok, err := p.connectorClause(&cs)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, p.errHere()
		}
	}
	ct.Include, ct.With, ct.Format, ct.Encode = cs.include, cs.with, cs.format, cs.encode
	return ct, nil
}

// onCommit reads an ON COMMIT clause at the cursor, if there is one, into
// ct: 42P16 on a table that is not temporary, as in PostgreSQL.
func (p *stmtParser) onCommit(ct *CreateTable) error {
	if p.word(0) != "on" || p.word(1) != "commit" {
		return nil
	}
	if !ct.Temp {
		return pgerr.New(pgerr.InvalidTableDefinition, "ON COMMIT can only be used on temporary tables")
	}
	p.pos += 2
	for _, what := range []string{"preserve rows", "delete rows", "drop"} {
		if p.accept(strings.Fields(what)...) {
			ct.OnCommit = what
			return nil
		}
	}
	return p.errHere()
}

// columnCollation checks a column's COLLATE name (at character pos) for
// type t as PostgreSQL's transformColumnType does: 42704 for a name
// PostgreSQL has no collation for, 0A000 for one that orders text
// otherwise than by its bytes (weir's only order), then 42804 when t
// is not collatable.
func columnCollation(n ObjectName, t types.T, pos int) error {
	if n.Schema != "" && n.Schema != "pg_catalog" || !byteCollations[n.Name] {
		if n.Schema == "" || n.Schema == "pg_catalog" {
			if strings.HasSuffix(n.Name, "-x-icu") || strings.Contains(strings.ToLower(n.Name), "utf") {
				return pgerr.New(pgerr.FeatureNotSupported, "collation \"%s\" is not supported", n.Name).WithPosition(pos)
			}
		}
		return pgerr.New(pgerr.UndefinedObject, "collation \"%s\" for encoding \"UTF8\" does not exist", n.String()).WithPosition(pos)
	}
	switch t.ID {
	case types.Text, types.Varchar, types.Bpchar, types.Name, types.TextArray, types.VarcharArray, types.BpcharArray, types.NameArray:
		return nil
	}
	return pgerr.New(pgerr.DatatypeMismatch, "collations are not supported by type %s", types.T{ID: t.ID, Mod: -1}).WithPosition(pos)
}

// columnList parses ( element, ... ) of CREATE TABLE or CREATE SOURCE
// into ct; what ("table" or "source") names the object in errors.
func (p *stmtParser) columnList(ct *CreateTable, what string) error {
	if err := p.expectOp("("); err != nil {
		return err
	}
	for {
		if err := p.tableElement(ct, what); err != nil {
			return err
		}
		if !p.acceptOp(",") {
			return p.expectOp(")")
		}
	}
}

func (p *stmtParser) setPrimaryKey(ct *CreateTable, cols []string, at Token, what string) error {
	if what == "source" {
		// A source stores nothing, so there is no key to keep rows by.
		return pgerr.New(pgerr.FeatureNotSupported, "PRIMARY KEY is not supported on a source").
			WithHint("Use CREATE TABLE with the same connector to keep the latest row per key.").
			WithPosition(charPos(p.src, at.Off))
	}
	if ct.PrimaryKey != nil {
		return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", ct.Name.Name).WithPosition(charPos(p.src, at.Off))
	}
	ct.PrimaryKey = cols
	return nil
}

// tableElement parses one column definition, table constraint or
// WATERMARK FOR clause; what is "table" or "source".
func (p *stmtParser) tableElement(ct *CreateTable, what string) error {
	start := p.peek()
	var conName string
	if p.accept("constraint") {
		n, err := p.name()
		if err != nil {
			return err
		}
		conName = n
	}
	switch {
	case what == "table" && p.word(0) == "unique" && (p.peekAt(1).Kind == TOp || p.word(1) == "nulls"):
		p.pos++
		nnd := p.nullsNotDistinct()
		cols, err := p.nameList()
		if err != nil {
			return err
		}
		ct.Uniques = append(ct.Uniques, UniqueDef{Name: conName, Cols: cols, Pos: charPos(p.src, start.Off), NullsNotDistinct: nnd})
		return p.indexConstraintTail()
	case p.word(0) == "primary" && p.word(1) == "key" && p.peekAt(2).Kind == TOp:
		p.pos += 2
		cols, err := p.nameList()
		if err != nil {
			return err
		}
		if err := p.setPrimaryKey(ct, cols, start, what); err != nil {
			return err
		}
		return p.indexConstraintTail()
	case what == "table" && p.word(0) == "check":
		p.pos++
		c, err := p.checkExpr(conName, false, what == "table" && ct.AsQuery == nil)
		if err != nil {
			return err
		}
		ct.Checks = append(ct.Checks, c)
		return nil
	case what == "table" && p.word(0) == "foreign" && p.word(1) == "key":
		fk, err := p.foreignKey(conName, charPos(p.src, start.Off), false)
		if err != nil {
			return err
		}
		ct.ForeignKeys = append(ct.ForeignKeys, fk)
		return nil
	case p.word(0) == "unique" && p.peekAt(1).Kind == TOp,
		p.word(0) == "check" && p.peekAt(1).Kind == TOp,
		p.word(0) == "foreign" && p.word(1) == "key",
		p.word(0) == "exclude":
		return p.unsupported(upper(p.word(0)) + " constraints are")
	case p.word(0) == "watermark" && p.word(1) == "for":
		return p.watermark(ct)
	case p.word(0) == "like" && p.peekAt(1).Kind != TEOF && p.peekAt(1).Kind != TOp:
		if what != "table" {
			return p.unsupported("LIKE in CREATE SOURCE is")
		}
		return p.likeClause(ct)
	}
	name, err := p.name()
	if err != nil {
		return err
	}
	for _, c := range ct.Columns {
		if c.Name == name {
			// Postgres finds duplicates after parsing (transformCreateStmt),
			// so the error has no position.
			return pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", name)
		}
	}
	col := ColumnDef{Name: name}
	if p.atEnd() {
		return p.errHere()
	}
	if t, ok := serialTypes[p.word(0)]; ok && (p.pos+1 >= len(p.toks) || !(p.toks[p.pos+1].Kind == TOp && (p.toks[p.pos+1].Val == "(" || p.toks[p.pos+1].Val == "["))) {
		// serial is not a type but a shorthand: an integer column, NOT
		// NULL, whose default takes the next value of its own sequence.
		col.Type = TypeName{T: t, Text: p.word(0)}
		col.Serial, col.NotNull = true, true
		p.pos++
	} else {
		tn, next, err := parseTypeAt(p.src, p.toks[:len(p.toks)], p.pos)
		if err != nil {
			return err
		}
		col.Type = tn
		p.pos = next
	}
	collated := false
	// index is set after a UNIQUE or PRIMARY KEY column constraint, the
	// constraints whose attributes follow them as clauses of their own.
	index := false
	for {
		at := p.peek()
		afterIndex := index
		index = false
		conName := ""
		if p.accept("constraint") {
			n, err := p.name()
			if err != nil {
				return err
			}
			conName = n
		}
		switch {
		case what == "table" && p.accept("unique"):
			nnd := p.nullsNotDistinct()
			ct.Uniques = append(ct.Uniques, UniqueDef{Name: conName, Cols: []string{name}, Pos: charPos(p.src, at.Off), NullsNotDistinct: nnd})
			index = true
		case p.accept("primary", "key"):
			if err := p.setPrimaryKey(ct, []string{name}, at, what); err != nil {
				return err
			}
			col.PrimaryKey = true
			index = true
		case p.accept("not", "null"):
			col.NotNull = true
		case p.accept("null"):
			col.Null = true
		case p.accept("default"):
			if err := p.columnDefault(&col, ct.Name.Name, at); err != nil {
				return err
			}
		case p.word(0) == "generated" && (p.word(1) == "always" && p.word(2) == "as" && p.word(3) == "identity" ||
			p.word(1) == "by" && p.word(2) == "default" && p.word(3) == "as" && p.word(4) == "identity"):
			if col.Identity != "" {
				return pgerr.New(pgerr.SyntaxError, "multiple identity specifications for column \"%s\" of table \"%s\"", name, ct.Name.Name).WithPosition(charPos(p.src, at.Off))
			}
			col.Identity = "always"
			if p.word(1) == "by" {
				col.Identity = "default"
				p.pos++
			}
			p.pos += 4
			col.NotNull = true
			if t := p.peek(); t.Kind == TOp && t.Val == "(" {
				return p.unsupported("sequence options of identity columns are")
			}
		case what == "table" && p.word(0) == "check":
			p.pos++
			c, err := p.checkExpr(conName, true, true)
			if err != nil {
				return err
			}
			ct.Checks = append(ct.Checks, c)
		case what == "table" && p.word(0) == "generated" && p.word(1) == "always" && p.word(2) == "as" && p.peekAt(3).Kind == TOp && p.peekAt(3).Val == "(":
			p.pos += 3
			start := p.pos
			text, pos, err := p.parenText()
			if err != nil {
				return err
			}
			if err := p.noParams(start, p.pos); err != nil {
				return err
			}
			if err := p.expect("stored"); err != nil {
				return err
			}
			if col.Generated != "" {
				return pgerr.New(pgerr.SyntaxError, "multiple generation clauses specified for column \"%s\" of table \"%s\"", name, ct.Name.Name).WithPosition(charPos(p.src, at.Off))
			}
			col.Generated, col.GeneratedPos, col.GeneratedAt = text, pos, charPos(p.src, at.Off)
		case what == "table" && p.accept("references"):
			fk := ForeignKeyDef{Name: conName, Cols: []string{name}, Pos: charPos(p.src, at.Off), column: true}
			if err := p.references(&fk, false); err != nil {
				return err
			}
			ct.ForeignKeys = append(ct.ForeignKeys, fk)
		case p.word(0) == "unique" || p.word(0) == "check" || p.word(0) == "references" || p.word(0) == "generated":
			return p.unsupported(upper(p.word(0)) + " constraints are")
		case p.word(0) == "collate":
			p.pos++
			cn, err := p.objectName()
			if err != nil {
				return err
			}
			if collated {
				return pgerr.New(pgerr.SyntaxError, "multiple COLLATE clauses not allowed").WithPosition(charPos(p.src, at.Off))
			}
			collated = true
			col.CollateErr = columnCollation(cn, col.Type.T, charPos(p.src, at.Off))
			if col.CollateErr == nil && cn.Name != "default" {
				col.Collation = cn.Name
			}
		case conName == "" && p.atDeferrability():
			// A FOREIGN KEY's attributes were taken with it (references).
			clause := "DEFERRABLE"
			if p.word(0) != "deferrable" {
				clause = upper(p.word(0)) + " " + upper(p.word(1))
			}
			if !afterIndex {
				return pgerr.New(pgerr.SyntaxError, "misplaced %s clause", clause).WithPosition(charPos(p.src, at.Off))
			}
			if err := p.indexDeferrability(true); err != nil {
				return err
			}
		case p.word(0) == "compression":
			return p.unsupported(upper(p.word(0)) + " is")
		default:
			if col.NotNull && col.Null {
				return pgerr.New(pgerr.SyntaxError, "conflicting NULL/NOT NULL declarations for column %q of %s %q", name, what, ct.Name.Name).WithPosition(charPos(p.src, start.Off))
			}
			ct.Columns = append(ct.Columns, col)
			return nil
		}
	}
}

// checkExpr parses the parenthesised expression after CHECK into a
// constraint named name ("" for none), with the NO INHERIT and NOT
// VALID that may follow in any order; column (a column constraint) has
// no NOT VALID in PostgreSQL's grammar (42601 at VALID), and CREATE
// TABLE's table constraints ignore it (create: the table is empty).
func (p *stmtParser) checkExpr(name string, column, create bool) (CheckDef, error) {
	start := p.pos
	text, pos, err := p.parenText()
	if err != nil {
		return CheckDef{}, err
	}
	if err := p.noParams(start, p.pos); err != nil {
		return CheckDef{}, err
	}
	c := CheckDef{Name: name, Expr: text, Pos: pos}
	var attrs ForeignKeyDef
	for {
		switch {
		case !column && p.atDeferrability():
			// PostgreSQL takes the attributes of any table constraint
			// and refuses a deferrable CHECK once all are read.
			if err := p.deferrability(&attrs); err != nil {
				return CheckDef{}, err
			}
			continue
		case attrs.Deferrable:
			return CheckDef{}, pgerr.New(pgerr.FeatureNotSupported, "CHECK constraints cannot be marked DEFERRABLE")
		case p.accept("no", "inherit"):
			c.NoInherit = true
		case p.word(0) == "not" && p.word(1) == "valid":
			if column {
				p.pos++
				return CheckDef{}, p.errHere()
			}
			p.pos += 2
			c.NotValid = !create
		default:
			return c, nil
		}
	}
}

// parenText parses ( expr ) and returns the expression's text as
// written and the character position (1-based) where it starts. An
// empty pair of parentheses is a syntax error at the ")".
func (p *stmtParser) parenText() (string, int, error) {
	if err := p.expectOp("("); err != nil {
		return "", 0, err
	}
	start := p.pos
	depth := 0
	for ; ; p.pos++ {
		t := p.peek()
		switch {
		case t.Kind == TEOF:
			return "", 0, p.errHere()
		case t.Kind == TOp && (t.Val == "(" || t.Val == "["):
			depth++
		case t.Kind == TOp && (t.Val == ")" || t.Val == "]"):
			if depth > 0 {
				depth--
				continue
			}
			if p.pos == start || t.Val == "]" {
				return "", 0, p.errHere()
			}
			first := p.toks[start]
			text := p.src[first.Off:p.toks[p.pos-1].End]
			p.pos++
			return text, charPos(p.src, first.Off), nil
		}
	}
}

// watermark parses WATERMARK FOR col AS expr, the expression running to
// the next ',' or the end of the column list.
func (p *stmtParser) watermark(ct *CreateTable) error {
	if ct.Watermark != nil {
		return p.unsupported("more than one WATERMARK clause is")
	}
	p.pos += 2
	col, err := p.name()
	if err != nil {
		return err
	}
	if err := p.expect("as"); err != nil {
		return err
	}
	text, node, err := p.expr(p.exprEnd(false))
	if err != nil {
		return err
	}
	ct.Watermark = &WatermarkDef{Column: col, Expr: text, ExprNode: node}
	return nil
}

// serialTypes are the serial pseudo-types and the integer type each
// stands for.
var serialTypes = map[string]types.T{
	"serial": types.TInt4, "serial4": types.TInt4, "bigserial": types.TInt8, "serial8": types.TInt8,
	"smallserial": types.TInt2, "serial2": types.TInt2,
}

// columnDefault parses the expression after DEFAULT up to the next column
// constraint or the end of the column definition, and bridges it. at is
// the DEFAULT keyword, where PostgreSQL reports a second one.
func (p *stmtParser) columnDefault(col *ColumnDef, table string, at Token) error {
	start := p.pos
	text, node, err := p.bExpr()
	if err != nil {
		return err
	}
	if err := p.noParams(start, p.pos); err != nil {
		return err
	}
	if col.Default != "" {
		return pgerr.New(pgerr.SyntaxError, "multiple default values specified for column \"%s\" of table \"%s\"", col.Name, table).WithPosition(charPos(p.src, at.Off))
	}
	col.Default, col.DefaultExpr = text, node
	if first := p.toks[start]; p.pos > start {
		col.DefaultWritten, col.DefaultPos = p.src[first.Off:p.toks[p.pos-1].End], charPos(p.src, first.Off)
	}
	return nil
}

// bExpr parses the b_expr of a column or domain constraint DEFAULT: an
// expression without PostgreSQL's boolean, IS, pattern, range and set
// operators at its top level (those need parentheses), up to the next
// constraint.
func (p *stmtParser) bExpr() (string, ast.ExprNode, error) {
	end := p.exprEnd(true)
	if k := bExprStop(p.toks, p.pos, end, true); k >= 0 {
		p.pos = k
		return "", nil, p.errHere()
	}
	return p.expr(end)
}

// exprEnd returns the index of the token after the expression at the
// cursor inside a column list: the next ',' or unmatched ')' at its
// nesting level, or, when constraints is set, the next column constraint
// keyword (PRIMARY, NOT NULL, ...).
func (p *stmtParser) exprEnd(constraints bool) int {
	start := p.pos
	depth := 0
	i := p.pos
loop:
	for ; i < len(p.toks); i++ {
		t := p.toks[i]
		switch {
		case t.Kind == TEOF:
			break loop
		case t.Kind == TOp && (t.Val == "(" || t.Val == "["):
			depth++
		case t.Kind == TOp && (t.Val == ")" || t.Val == "]"):
			if depth == 0 {
				break loop
			}
			depth--
		case depth == 0 && t.Kind == TOp && t.Val == ",":
			break loop
		case constraints && depth == 0 && i > start && t.Kind == TIdent:
			switch t.Val {
			case "primary", "unique", "check", "references", "constraint", "collate", "generated", "initially", "default":
				break loop
			case "deferrable":
				if p.toks[i-1].Kind == TIdent && p.toks[i-1].Val == "not" && i-1 > start {
					i--
				}
				break loop
			case "null":
				if p.toks[i-1].Kind == TIdent && p.toks[i-1].Val == "not" && i-1 > start {
					i--
					break loop
				}
				if !(p.toks[i-1].Kind == TIdent && (p.toks[i-1].Val == "is" || p.toks[i-1].Val == "not")) {
					break loop
				}
			}
		}
	}
	return i
}

// expr bridges the tokens from the cursor to end (exclusive) as one scalar
// expression and returns its bridged text and TiDB AST.
func (p *stmtParser) expr(end int) (string, ast.ExprNode, error) {
	if end == p.pos {
		return "", nil, p.errHere()
	}
	q, err := bridgeExpr(p.src, p.toks[p.pos:end])
	if err != nil {
		return "", nil, err
	}
	p.pos = end
	return strings.TrimSpace(strings.TrimPrefix(q.Rewritten, "select")), q.Node.(*ast.SelectStmt).Fields.Fields[0].Expr, nil
}

// connectorSpec collects the clauses after the column list of a source or
// a table that say where its rows come from.
type connectorSpec struct {
	include        []IncludeClause
	with           map[string]string
	withSeen       bool
	format, encode string
	formatAt       int // token index of FORMAT; meaningful when format != ""
}

// merge adds options to the spec's WITH options (ENCODE options and a
// repeated WITH land in the same map). An option given twice is 22023.
func (cs *connectorSpec) merge(m map[string]string) error {
	if cs.with == nil {
		cs.with = m
		return nil
	}
	return mergeOptions(cs.with, m)
}

// mergeOptions adds the options of m to into; an option in both is
// 22023, as Postgres says of a repeated storage parameter.
func mergeOptions(into, m map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if _, dup := into[k]; dup {
			return pgerr.New(pgerr.InvalidParameterValue, "parameter \"%s\" specified more than once", k)
		}
		into[k] = m[k]
	}
	return nil
}

// connectorClause parses one INCLUDE, WITH (...) or FORMAT ... ENCODE ...
// clause into cs, reporting false when none is at the cursor. The clauses
// may come in any order.
func (p *stmtParser) connectorClause(cs *connectorSpec) (bool, error) {
	switch {
	case p.accept("include"):
		return true, p.include(cs)
	case p.accept("with"):
		m, err := p.options()
		if err != nil {
			return true, err
		}
		cs.withSeen = true
		return true, cs.merge(m)
	case p.word(0) == "format":
		if cs.format != "" {
			return true, pgerr.New(pgerr.SyntaxError, "conflicting or redundant FORMAT clauses").WithPosition(charPos(p.src, p.peek().Off))
		}
		cs.formatAt = p.pos
		p.pos++
		return true, p.formatEncode(&cs.format, &cs.encode, cs.merge, false)
	}
	return false, nil
}

// formatEncode parses `f ENCODE e [(options)]` after FORMAT, lower-casing
// f and e; the ENCODE options are passed to merge. With optEncode (a
// sink's, whose database connectors take no encoding), `f` alone is
// accepted too and leaves encode empty.
func (p *stmtParser) formatEncode(format, encode *string, merge func(map[string]string) error, optEncode bool) error {
	f, err := p.name()
	if err != nil {
		return err
	}
	if optEncode && (p.atEnd() || p.word(0) != "encode") {
		*format = lowerASCII(f)
		return nil
	}
	if err := p.expect("encode"); err != nil {
		return err
	}
	e, err := p.name()
	if err != nil {
		return err
	}
	*format, *encode = lowerASCII(f), lowerASCII(e)
	if p.peek().Kind == TOp && p.peek().Val == "(" {
		m, err := p.options()
		if err != nil {
			return err
		}
		return merge(m)
	}
	return nil
}

// include parses `partition | offset | timestamp | key [AS name]` after
// INCLUDE. RisingWave's header and payload are 0A000; any other word is
// 42601. Including the same attribute twice is 42601.
func (p *stmtParser) include(cs *connectorSpec) error {
	at := p.peek()
	w := p.word(0)
	switch w {
	case "partition", "offset", "timestamp", "key":
	case "header", "payload":
		return p.unsupported("INCLUDE " + upper(w) + " is")
	default:
		if at.Kind != TIdent && at.Kind != TQIdent {
			return p.errHere()
		}
		return pgerr.New(pgerr.SyntaxError, "unrecognized INCLUDE item %q", at.Val).
			WithHint("Expected partition, offset, timestamp or key.").
			WithPosition(charPos(p.src, at.Off))
	}
	for _, c := range cs.include {
		if c.What == w {
			return pgerr.New(pgerr.SyntaxError, "INCLUDE %s specified more than once", w).WithPosition(charPos(p.src, at.Off))
		}
	}
	p.pos++
	inc := IncludeClause{What: w}
	if p.accept("as") {
		a, err := p.name()
		if err != nil {
			return err
		}
		inc.Alias = a
	}
	cs.include = append(cs.include, inc)
	return nil
}

// missingWith is the error for a CREATE SOURCE or CREATE SINK without its
// WITH (connector = ...) clause, positioned at the token at.
func (p *stmtParser) missingWith(what string, at Token) error {
	off := at.Off
	if at.Kind == TEOF {
		off = len(p.src)
		if at.Off < len(p.src) && p.src[at.Off] == ';' {
			off = at.Off
		}
	}
	return pgerr.New(pgerr.SyntaxError, "CREATE %s requires a WITH clause", what).
		WithHint("Name the connector and its options: WITH (connector = 'kafka', topic = '...', properties.bootstrap.server = '...').").
		WithPosition(charPos(p.src, off))
}

// createSource parses CREATE SOURCE after the SOURCE keyword. The column
// list is CREATE TABLE's (without PRIMARY KEY); INCLUDE, WITH and FORMAT
// may follow in any order, and WITH is required.
func (p *stmtParser) createSource() (Stmt, error) {
	s := &CreateSource{IfNotExists: p.accept("if", "not", "exists")}
	n, err := p.objectName()
	if err != nil {
		return nil, err
	}
	s.Name = n
	ct := &CreateTable{Name: n}
	if err := p.columnList(ct, "source"); err != nil {
		return nil, err
	}
	s.Columns, s.Watermark = ct.Columns, ct.Watermark
	var cs connectorSpec
	for !p.atEnd() {
		ok, err := p.connectorClause(&cs)
		if err != nil {
			return nil, err
		}
		if !ok {
			if p.word(0) == "append" && p.word(1) == "only" {
				return nil, pgerr.New(pgerr.SyntaxError, "APPEND ONLY applies to tables; a source is always append-only").WithPosition(charPos(p.src, p.peek().Off))
			}
			return nil, p.errHere()
		}
	}
	if !cs.withSeen {
		at := p.peek()
		if cs.format != "" {
			at = p.toks[cs.formatAt]
		}
		return nil, p.missingWith("SOURCE", at)
	}
	s.Include, s.With, s.Format, s.Encode = cs.include, cs.with, cs.format, cs.encode
	return s, nil
}

// createSink parses CREATE SINK after the SINK keyword:
//
//	name FROM relation WITH (...) [FORMAT f ENCODE e [(...)]]
//	name AS query WITH (...) [FORMAT f ENCODE e [(...)]]
//
// The query of the AS form ends at the last `WITH (` at the statement's
// top nesting level. A query never has one there itself: its own WITH
// (a CTE list) is followed by a name or RECURSIVE, and WITH TIME ZONE,
// WITH ORDINALITY and WITH TIES by words, so the last one is the sink's.
func (p *stmtParser) createSink() (Stmt, error) {
	s := &CreateSink{IfNotExists: p.accept("if", "not", "exists")}
	n, err := p.objectName()
	if err != nil {
		return nil, err
	}
	s.Name = n
	switch {
	case p.accept("from"):
		if s.From, err = p.objectName(); err != nil {
			return nil, err
		}
	case p.accept("as"):
		start, end := p.pos, -1
		depth := 0
		for i := start; i < p.endIndex(); i++ {
			t := p.toks[i]
			switch {
			case t.Kind == TOp && (t.Val == "(" || t.Val == "["):
				depth++
			case t.Kind == TOp && (t.Val == ")" || t.Val == "]"):
				depth--
			case depth == 0 && t.Kind == TIdent && t.Val == "with" && p.toks[i+1].Kind == TOp && p.toks[i+1].Val == "(":
				end = i
			}
		}
		if end < 0 {
			if start == p.endIndex() {
				return nil, p.errHere()
			}
			return nil, p.missingWith("SINK", p.toks[p.endIndex()])
		}
		q, err := p.query(end)
		if err != nil {
			return nil, err
		}
		s.Query = q
		s.QueryText = p.src[p.toks[start].Off:p.toks[end-1].End]
	case p.word(0) == "into":
		return nil, p.unsupported("CREATE SINK ... INTO is")
	default:
		return nil, p.errHere()
	}
	if !p.accept("with") {
		if p.atEnd() || p.word(0) == "format" {
			return nil, p.missingWith("SINK", p.peek())
		}
		return nil, p.errHere()
	}
	if s.With, err = p.options(); err != nil {
		return nil, err
	}
	if p.accept("format") {
		merge := func(m map[string]string) error { return mergeOptions(s.With, m) }
		if err := p.formatEncode(&s.Format, &s.Encode, merge, true); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// likeClause parses LIKE source [INCLUDING | EXCLUDING option ...] into
// a ColumnDef of ct standing for source's columns. INCLUDING DEFAULTS
// copies the defaults, CONSTRAINTS the CHECK constraints, GENERATED the
// generation expressions; STORAGE, COMPRESSION and STATISTICS are about
// what weir does not keep, so they change nothing; the options that copy
// indexes, identity or comments (and ALL) are 0A000.
func (p *stmtParser) likeClause(ct *CreateTable) error {
	p.pos++
	at := charPos(p.src, p.peek().Off)
	n, err := p.objectName()
	if err != nil {
		return err
	}
	l := &LikeClause{Table: n, Pos: at}
	for p.word(0) == "including" || p.word(0) == "excluding" {
		including := p.word(0) == "including"
		p.pos++
		switch w := p.word(0); w {
		case "defaults":
			l.Defaults = including
		case "storage", "compression", "statistics":
		case "constraints":
			l.Constraints = including
		case "generated":
			l.Generated = including
		case "all", "indexes", "identity", "comments":
			if including {
				return p.unsupported("LIKE ... INCLUDING " + upper(w) + " is")
			}
		default:
			return p.errHere()
		}
		p.pos++
	}
	ct.Columns = append(ct.Columns, ColumnDef{Like: l})
	return nil
}

// indexConstraintTail takes the clauses PostgreSQL takes after a UNIQUE
// or PRIMARY KEY constraint: NOT DEFERRABLE and INITIALLY IMMEDIATE (the
// defaults) are taken, and those weir's constraints do not have are
// refused (0A000).
func (p *stmtParser) indexConstraintTail() error {
	if err := p.indexDeferrability(false); err != nil {
		return err
	}
	if p.word(0) == "include" || p.word(0) == "with" || p.word(0) == "using" && p.word(1) == "index" {
		return p.unsupported(upper(p.word(0)) + " in a constraint is")
	}
	return nil
}

// atDeferrability reports whether a constraint attribute is at the
// cursor: [NOT] DEFERRABLE or INITIALLY DEFERRED | IMMEDIATE.
func (p *stmtParser) atDeferrability() bool {
	return p.word(0) == "deferrable" || p.word(0) == "not" && p.word(1) == "deferrable" ||
		p.word(0) == "initially" && (p.word(1) == "deferred" || p.word(1) == "immediate")
}

// indexDeferrability takes the attributes at the cursor of a UNIQUE or
// PRIMARY KEY constraint (a column's when column is set), with
// PostgreSQL's errors for clauses that conflict: NOT DEFERRABLE and
// INITIALLY IMMEDIATE, the defaults, pass, and a deferrable constraint,
// which weir's key stores cannot hold, is refused (0A000).
func (p *stmtParser) indexDeferrability(column bool) error {
	attrs := ForeignKeyDef{column: column}
	first := -1
	for p.atDeferrability() {
		if (p.word(0) == "deferrable" || p.word(1) == "deferred") && first < 0 {
			first = p.peek().Off
		}
		if err := p.deferrability(&attrs); err != nil {
			return err
		}
	}
	if attrs.Deferrable {
		return pgerr.New(pgerr.FeatureNotSupported, "deferrable UNIQUE and PRIMARY KEY constraints are not supported yet").
			WithPosition(charPos(p.src, first))
	}
	return nil
}

// trailingWith returns the end of a CREATE TABLE AS, CREATE MATERIALIZED
// VIEW or CREATE VIEW query (tokens before end) without the clause
// PostgreSQL takes after it: WITH DATA (the default; data is true for
// the statements that have the clause, whose callers take WITH NO DATA
// off first), and a view's refused WITH [CASCADED | LOCAL] CHECK OPTION.
// afterWithData places err, a syntax error in a materialized view's
// query (tokens start to end), where PostgreSQL's grammar finds it when
// the error is at a WITH after a whole query: that WITH begins the view's
// WITH [NO] DATA, so the error is at the token after it (WITH NO DATA
// WITH NO DATA), or at what follows WITH when it is neither DATA nor NO
// (WITH CHECK OPTION).
func (p *stmtParser) afterWithData(err error, start, end int) error {
	pe := pgerr.As(err)
	if pe == nil || pe.Code != pgerr.SyntaxError || pe.Position <= 0 {
		return err
	}
	for i := start + 1; i < end; i++ {
		t := p.toks[i]
		if t.Kind != TIdent || t.Val != "with" || charPos(p.src, t.Off) != pe.Position {
			continue
		}
		if _, qerr := bridgeQueryMode(p.ctx, p.src, p.toks[start:i], !p.stored, p.definition); qerr != nil {
			// The WITH does not follow a whole query.
			return err
		}
		next := i + 1
		switch {
		case p.toks[next].Kind == TIdent && p.toks[next].Val == "data":
			next++
		case p.toks[next].Kind == TIdent && p.toks[next].Val == "no" && p.toks[next+1].Kind == TIdent && p.toks[next+1].Val == "data":
			next += 2
		case p.toks[next].Kind == TIdent && p.toks[next].Val == "no":
			next++
		}
		return syntaxErrorAt(p.src, p.toks[next])
	}
	return err
}

func (p *stmtParser) trailingWith(end int, data bool) (int, error) {
	ends := func(words ...string) bool {
		if end-p.pos <= len(words) {
			return false
		}
		for i, w := range words {
			if t := p.toks[end-len(words)+i]; t.Kind != TIdent || t.Val != w {
				return false
			}
		}
		return true
	}
	at := func(n int) int { return charPos(p.src, p.toks[end-n].Off) }
	switch {
	case data && ends("with", "data"):
		return end - 2, nil
	case !data && ends("with", "check", "option"):
		return 0, pgerr.New(pgerr.FeatureNotSupported, "WITH CHECK OPTION is not supported").WithPosition(at(3))
	case !data && (ends("with", "cascaded", "check", "option") || ends("with", "local", "check", "option")):
		return 0, pgerr.New(pgerr.FeatureNotSupported, "WITH CHECK OPTION is not supported").WithPosition(at(4))
	}
	return end, nil
}

// schemaElements parses the schema elements of CREATE SCHEMA, each
// CREATE TABLE, VIEW, INDEX or SEQUENCE, or GRANT, into s.Elements in
// the order PostgreSQL 15 runs them (sequences, tables, views, indexes,
// grants). The relations they create, and the table an index is on,
// are put in the new schema; naming another is 42P15.
func (p *stmtParser) schemaElements(s *CreateSchema) error {
	// An element starts at each CREATE or GRANT outside parentheses:
	// both are reserved words, which no name or expression is.
	var starts []int
	depth := 0
	for i := p.pos; i < len(p.toks) && p.toks[i].Kind != TEOF; i++ {
		t := p.toks[i]
		switch {
		case t.Kind == TOp && (t.Val == "(" || t.Val == "["):
			depth++
		case t.Kind == TOp && (t.Val == ")" || t.Val == "]"):
			depth--
		case depth == 0 && t.Kind == TIdent && (t.Val == "create" || t.Val == "grant"):
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 || starts[0] != p.pos {
		return p.errHere()
	}
	if s.IfNotExists {
		return pgerr.New(pgerr.FeatureNotSupported, "CREATE SCHEMA IF NOT EXISTS cannot include schema elements").
			WithPosition(charPos(p.src, p.peek().Off))
	}
	end := p.toks[len(p.toks)-1].Off
	for k := len(p.toks) - 1; k >= 0; k-- {
		if p.toks[k].Kind != TEOF {
			end = p.toks[k].End
			break
		}
	}
	var groups [5][]SchemaElement
	for k, i := range starts {
		from, to := p.toks[i].Off, end
		if k+1 < len(starts) {
			to = p.toks[starts[k+1]].Off
		}
		text := strings.TrimSpace(p.src[from:to])
		el := SchemaElement{Text: text, Pos: charPos(p.src, from)}
		// w is where PostgreSQL's grammar fails on an element it does not
		// take: the word after CREATE (or after CREATE OR REPLACE).
		w := p.toks[i+1]
		if p.toks[i].Val == "create" && w.Kind == TIdent && w.Val == "or" && i+3 < len(p.toks) {
			w = p.toks[i+3]
		}
		if p.toks[i].Val == "create" && w.Kind == TIdent && w.Val != "table" && w.Val != "view" && w.Val != "index" && w.Val != "sequence" &&
			w.Val != "unique" && w.Val != "unlogged" && w.Val != "temp" && w.Val != "temporary" && w.Val != "local" && w.Val != "global" && w.Val != "recursive" {
			return syntaxErrorAt(p.src, w)
		}
		st, err := parse(p.ctx, text, false, false)
		if err != nil {
			if pe := pgerr.As(err); pe != nil && pe.Position > 0 {
				cp := *pe
				cp.Position += el.Pos - 1
				return &cp
			}
			return err
		}
		check := func(n *ObjectName) error {
			if n.Schema != "" && n.Schema != s.Name {
				return pgerr.New(pgerr.InvalidSchemaDefinition, "CREATE specifies a schema (%s) different from the one being created (%s)", n.Schema, s.Name)
			}
			n.Schema = s.Name
			return nil
		}
		group := 0
		switch st := st.(type) {
		case *CreateSequence:
			err = check(&st.Name)
		case *CreateTable:
			if st.AsQuery != nil {
				// CREATE TABLE ... AS is no schema element: PostgreSQL's
				// grammar fails at its AS.
				at := p.toks[i]
				for k, depth := i, 0; k < len(p.toks) && p.toks[k].Kind != TEOF; k++ {
					t := p.toks[k]
					if t.Kind == TOp && t.Val == "(" {
						depth++
					} else if t.Kind == TOp && t.Val == ")" {
						depth--
					} else if depth == 0 && t.Kind == TIdent && t.Val == "as" {
						at = t
						break
					}
				}
				return syntaxErrorAt(p.src, at)
			}
			group = 1
			err = check(&st.Name)
		case *CreateView:
			if st.Materialized {
				return syntaxErrorAt(p.src, w)
			}
			group = 2
			err = check(&st.Name)
		case *CreateIndex:
			group = 3
			err = check(&st.Rel)
		case *Grant:
			if st.Revoke {
				return syntaxErrorAt(p.src, p.toks[i])
			}
			group = 4
		default:
			return syntaxErrorAt(p.src, p.toks[i])
		}
		if err != nil {
			return err
		}
		el.Stmt = st
		groups[group] = append(groups[group], el)
	}
	for _, g := range groups {
		s.Elements = append(s.Elements, g...)
	}
	p.pos = len(p.toks) - 1
	return nil
}
