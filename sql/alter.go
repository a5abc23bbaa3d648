package sql

import (
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// Rename is ALTER TABLE | VIEW | MATERIALIZED VIEW | SOURCE | SINK
// [IF EXISTS] name RENAME TO new_name.
type Rename struct {
	Kind     string // as in Drop.Kind: "table", "view", "materialized view", "source", "sink"
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
	start := p.pos
	p.pos++
	kind, ok := p.relationKind()
	if !ok {
		p.pos = start
		return nil, p.unsupportedStmt()
	}
	r := &Rename{Kind: kind, IfExists: p.accept("if", "exists")}
	n, err := p.objectName()
	if err != nil {
		return nil, err
	}
	r.Name = n
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
