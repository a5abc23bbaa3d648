package sql

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
)

func (p *stmtParser) create() (Stmt, error) {
	p.pos++
	switch {
	case p.accept("table"):
		return p.createTable()
	case p.accept("schema"):
		s := &CreateSchema{IfNotExists: p.accept("if", "not", "exists")}
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		s.Name = n
		if p.accept("authorization") {
			if _, err := p.name(); err != nil {
				return nil, err
			}
		}
		return s, nil
	}
	v := &CreateView{}
	if p.accept("or", "replace") {
		v.OrReplace = true
	}
	if p.accept("materialized") {
		v.Materialized = true
	}
	if !p.accept("view") {
		switch p.word(0) {
		case "source", "sink", "index", "function", "sequence", "type", "database", "user", "role":
			return nil, p.unsupported("CREATE " + upper(p.word(0)) + " is")
		}
		return nil, p.errHere()
	}
	return p.createView(v)
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
	if end-p.pos > 4 && p.toks[end-4].Kind == TIdent && p.toks[end-4].Val == "emit" &&
		p.toks[end-3].Val == "on" && p.toks[end-2].Val == "window" && p.toks[end-1].Val == "close" &&
		p.toks[end-3].Kind == TIdent && p.toks[end-2].Kind == TIdent && p.toks[end-1].Kind == TIdent {
		v.EmitOnWindowClose = true
		end -= 4
	}
	start := p.pos
	q, err := p.query(end)
	if err != nil {
		return nil, err
	}
	v.Query = q
	v.QueryText = p.src[p.toks[start].Off:p.toks[end-1].End]
	p.pos = p.endIndex()
	return v, nil
}

func (p *stmtParser) createTable() (Stmt, error) {
	ct := &CreateTable{IfNotExists: p.accept("if", "not", "exists")}
	n, err := p.objectName()
	if err != nil {
		return nil, err
	}
	ct.Name = n
	if p.accept("as") {
		q, err := p.query(p.endIndex())
		if err != nil {
			return nil, err
		}
		ct.AsQuery = q
		return ct, nil
	}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	for {
		if err := p.tableElement(ct); err != nil {
			return nil, err
		}
		if !p.acceptOp(",") {
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			break
		}
	}
	for !p.atEnd() {
		switch {
		case p.accept("append", "only"):
			ct.AppendOnly = true
		case p.accept("with"):
			m, err := p.options()
			if err != nil {
				return nil, err
			}
			if ct.With == nil {
				ct.With = m
			} else {
				for k, v := range m {
					ct.With[k] = v
				}
			}
		case p.accept("format"):
			f, err := p.name()
			if err != nil {
				return nil, err
			}
			ct.Format = lowerASCII(f)
			if err := p.expect("encode"); err != nil {
				return nil, err
			}
			e, err := p.name()
			if err != nil {
				return nil, err
			}
			ct.Encode = lowerASCII(e)
			if p.peek().Kind == TOp && p.peek().Val == "(" {
				m, err := p.options()
				if err != nil {
					return nil, err
				}
				if ct.With == nil {
					ct.With = map[string]string{}
				}
				for k, v := range m {
					ct.With[k] = v
				}
			}
		default:
			return nil, p.errHere()
		}
	}
	return ct, nil
}

func (p *stmtParser) setPrimaryKey(ct *CreateTable, cols []string, at Token) error {
	if ct.PrimaryKey != nil {
		return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", ct.Name.Name).WithPosition(charPos(p.src, at.Off))
	}
	ct.PrimaryKey = cols
	return nil
}

// tableElement parses one column definition or table constraint.
func (p *stmtParser) tableElement(ct *CreateTable) error {
	start := p.peek()
	if p.accept("constraint") {
		if _, err := p.name(); err != nil {
			return err
		}
	}
	switch {
	case p.word(0) == "primary" && p.word(1) == "key" && p.peekAt(2).Kind == TOp:
		p.pos += 2
		cols, err := p.nameList()
		if err != nil {
			return err
		}
		return p.setPrimaryKey(ct, cols, start)
	case p.word(0) == "unique" && p.peekAt(1).Kind == TOp,
		p.word(0) == "check" && p.peekAt(1).Kind == TOp,
		p.word(0) == "foreign" && p.word(1) == "key",
		p.word(0) == "exclude":
		return p.unsupported(upper(p.word(0)) + " constraints are")
	case p.word(0) == "watermark" && p.word(1) == "for":
		return p.unsupported("WATERMARK is")
	case p.word(0) == "like" && p.peekAt(1).Kind != TEOF && p.peekAt(1).Kind != TOp:
		return p.unsupported("CREATE TABLE ... LIKE is")
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
	tn, next, err := parseTypeAt(p.src, p.toks[:len(p.toks)], p.pos)
	if err != nil {
		return err
	}
	col.Type = tn
	p.pos = next
	for {
		at := p.peek()
		if p.accept("constraint") {
			if _, err := p.name(); err != nil {
				return err
			}
		}
		switch {
		case p.accept("primary", "key"):
			if err := p.setPrimaryKey(ct, []string{name}, at); err != nil {
				return err
			}
			col.PrimaryKey = true
		case p.accept("not", "null"):
			col.NotNull = true
		case p.accept("null"):
			col.Null = true
		case p.accept("default"):
			if err := p.columnDefault(&col); err != nil {
				return err
			}
		case p.word(0) == "unique" || p.word(0) == "check" || p.word(0) == "references" || p.word(0) == "generated":
			return p.unsupported(upper(p.word(0)) + " constraints are")
		case p.accept("collate"):
			if _, err := p.objectName(); err != nil {
				return err
			}
		default:
			if col.NotNull && col.Null {
				return pgerr.New(pgerr.SyntaxError, "conflicting NULL/NOT NULL declarations for column %q of table %q", name, ct.Name.Name).WithPosition(charPos(p.src, start.Off))
			}
			ct.Columns = append(ct.Columns, col)
			return nil
		}
	}
}

// columnDefault parses the expression after DEFAULT up to the next column
// constraint or the end of the column definition, and bridges it.
func (p *stmtParser) columnDefault(col *ColumnDef) error {
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
		case depth == 0 && i > start && t.Kind == TIdent:
			switch t.Val {
			case "primary", "unique", "check", "references", "constraint", "collate", "generated":
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
	if i == start {
		return p.errHere()
	}
	q, err := bridgeExpr(p.src, p.toks[start:i])
	if err != nil {
		return err
	}
	col.Default = strings.TrimSpace(strings.TrimPrefix(q.Rewritten, "select"))
	col.DefaultExpr = q.Node.(*ast.SelectStmt).Fields.Fields[0].Expr
	p.pos = i
	return nil
}
