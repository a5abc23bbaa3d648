package sql

import (
	"strconv"
	"strings"
)

// This file parses the statements about roles and privileges, in
// PostgreSQL 15's grammar (CREATE ROLE, ALTER ROLE, DROP ROLE, GRANT,
// REVOKE); USER is ROLE with LOGIN.

// RoleOptions are the options of CREATE ROLE and ALTER ROLE; a nil field
// was not given.
type RoleOptions struct {
	Superuser, Login, CreateRole, CreateDB, Inherit *bool
	// Password is the PASSWORD clause's text; PasswordNull marks PASSWORD
	// NULL (no password).
	Password     *string
	PasswordNull bool
	// ValidUntil is the VALID UNTIL clause's timestamp text.
	ValidUntil *string
	// ConnLimit is the CONNECTION LIMIT clause.
	ConnLimit *int
}

// CreateRole is CREATE ROLE | USER name [[WITH] option ...].
type CreateRole struct {
	Name string
	// User marks CREATE USER, whose roles can log in unless NOLOGIN.
	User bool
	Opts RoleOptions
}

// AlterRole is ALTER ROLE | USER name [WITH] option ... or ALTER ROLE
// name RENAME TO new.
type AlterRole struct {
	Name     string
	Opts     RoleOptions
	RenameTo string
}

// DropRole is DROP ROLE | USER [IF EXISTS] name, ....
type DropRole struct {
	Names    []string
	IfExists bool
}

// Grant is GRANT privileges ON object TO grantees, or REVOKE privileges
// ON object FROM grantees; or, with On "role", GRANT role, ... TO
// grantees (membership), whose roles are in Objects. Privileges are lower-cased ("select",
// "insert", "update", "delete", "create", "usage", "all"); a grantee
// "public" is PUBLIC.
type Grant struct {
	Revoke     bool
	Privileges []string
	// On is "table", "sequence", "schema", "all tables in schema", "all
	// sequences in schema", "function" (Funcs) or "role".
	On       string
	Objects  []ObjectName
	Funcs    []FuncRef
	Grantees []string
}

func (*CreateRole) stmt() {}
func (*AlterRole) stmt()  {}
func (*DropRole) stmt()   {}
func (*Grant) stmt()      {}

// roleOptions parses role options until the end of the statement.
func (p *stmtParser) roleOptions(o *RoleOptions) error {
	p.accept("with")
	yes, no := true, false
	flags := map[string]**bool{"superuser": &o.Superuser, "login": &o.Login, "createrole": &o.CreateRole,
		"createdb": &o.CreateDB, "inherit": &o.Inherit}
	for !p.atEnd() {
		w := p.word(0)
		if f, ok := flags[w]; ok {
			p.pos++
			*f = &yes
			continue
		}
		if f, ok := flags[strings.TrimPrefix(w, "no")]; ok && strings.HasPrefix(w, "no") {
			p.pos++
			*f = &no
			continue
		}
		switch {
		case p.accept("encrypted", "password"), p.accept("password"):
			if p.accept("null") {
				o.PasswordNull, o.Password = true, nil
				continue
			}
			t := p.peek()
			if t.Kind != TString {
				return p.errHere()
			}
			if t.Err != nil {
				return t.Err
			}
			p.pos++
			v := t.Val
			o.Password, o.PasswordNull = &v, false
		case p.accept("valid", "until"):
			t := p.peek()
			if t.Kind != TString {
				return p.errHere()
			}
			p.pos++
			v := t.Val
			o.ValidUntil = &v
		case w == "replication" || w == "noreplication" || w == "bypassrls" || w == "nobypassrls" || w == "sysid" ||
			w == "admin" || w == "role" || w == "user" || w == "in" && (p.word(1) == "role" || p.word(1) == "group"):
			if w == "in" {
				w += " " + p.word(1)
			}
			return p.unsupported("role option " + strings.ToUpper(w) + " is")
		case p.accept("connection", "limit"):
			v, err := p.value()
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return syntaxErrorAt(p.src, p.toks[p.pos-1])
			}
			o.ConnLimit = &n
		default:
			return p.errHere()
		}
	}
	return nil
}

// createRole parses CREATE ROLE | USER after CREATE.
func (p *stmtParser) createRole() (Stmt, error) {
	c := &CreateRole{User: p.word(0) == "user"}
	p.pos++
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	c.Name = n
	return c, p.roleOptions(&c.Opts)
}

// alterRole parses ALTER ROLE | USER after ALTER.
func (p *stmtParser) alterRole() (Stmt, error) {
	p.pos++
	a := &AlterRole{}
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	a.Name = n
	if p.accept("rename", "to") {
		if a.RenameTo, err = p.name(); err != nil {
			return nil, err
		}
		return a, nil
	}
	if w := p.word(0); w == "set" || w == "reset" || w == "in" && p.word(1) == "database" {
		return nil, p.unsupported("ALTER ROLE ... " + strings.ToUpper(w) + " is")
	}
	return a, p.roleOptions(&a.Opts)
}

// dropRole parses DROP ROLE | USER after DROP.
func (p *stmtParser) dropRole() (Stmt, error) {
	p.pos++
	d := &DropRole{IfExists: p.accept("if", "exists")}
	for {
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		d.Names = append(d.Names, n)
		if !p.acceptOp(",") {
			return d, nil
		}
	}
}

// grant parses GRANT and REVOKE.
func (p *stmtParser) grant() (Stmt, error) {
	g := &Grant{Revoke: p.word(0) == "revoke"}
	p.pos++
	if g.Revoke && p.accept("grant", "option", "for") {
		return nil, p.unsupported("REVOKE GRANT OPTION FOR is")
	}
	if p.isRoleGrant() {
		g.On = "role"
		for {
			n, err := p.name()
			if err != nil {
				return nil, err
			}
			g.Objects = append(g.Objects, ObjectName{Name: n})
			if !p.acceptOp(",") {
				break
			}
		}
		return p.grantees(g)
	}
	for {
		w := p.word(0)
		switch w {
		case "select", "insert", "update", "delete", "create", "usage", "truncate", "references", "trigger", "execute":
			p.pos++
		case "all":
			p.pos++
			p.accept("privileges")
		case "temporary", "temp", "connect", "set", "alter":
			return nil, p.unsupported("privilege " + strings.ToUpper(w) + " is")
		default:
			return nil, p.errHere()
		}
		if t := p.peek(); t.Kind == TOp && t.Val == "(" {
			// PostgreSQL's column privileges (GRANT SELECT (a) ON t).
			return nil, p.unsupported("column privileges are")
		}
		g.Privileges = append(g.Privileges, w)
		if !p.acceptOp(",") {
			break
		}
	}
	if err := p.expect("on"); err != nil {
		return nil, err
	}
	if p.word(0) == "function" && (p.peekAt(1).Kind == TIdent || p.peekAt(1).Kind == TQIdent) && p.word(1) != "to" && p.word(1) != "from" {
		p.pos++
		g.On = "function"
		for {
			r, err := p.funcRef()
			if err != nil {
				return nil, err
			}
			g.Funcs = append(g.Funcs, r)
			if !p.acceptOp(",") {
				break
			}
		}
		return p.grantees(g)
	}
	switch w := p.word(0); {
	case w == "all" && p.word(2) == "in" && p.word(1) != "tables" && p.word(1) != "sequences",
		w == "function" || w == "procedure" || w == "routine" || w == "database" || w == "domain" ||
			w == "foreign" || w == "language" || w == "large" || w == "tablespace" || w == "type" || w == "parameter":
		if (p.peekAt(1).Kind == TIdent || p.peekAt(1).Kind == TQIdent) && p.word(1) != "to" && p.word(1) != "from" {
			return nil, p.unsupported("GRANT and REVOKE on " + strings.ToUpper(w) + " are")
		}
	}
	switch {
	case p.accept("all", "tables", "in", "schema"):
		g.On = "all tables in schema"
	case p.accept("all", "sequences", "in", "schema"):
		g.On = "all sequences in schema"
	case p.accept("schema"):
		g.On = "schema"
	case p.word(0) == "sequence" && p.word(1) != "to" && p.word(1) != "from":
		p.pos++
		g.On = "sequence"
	default:
		p.accept("table")
		g.On = "table"
	}
	names, err := p.objectNames()
	if err != nil {
		return nil, err
	}
	g.Objects = names
	return p.grantees(g)
}

// isRoleGrant reports whether the GRANT or REVOKE at the cursor grants
// roles: its TO or FROM comes before any ON.
func (p *stmtParser) isRoleGrant() bool {
	for k := 0; p.pos+k < len(p.toks)-1; k++ {
		switch p.word(k) {
		case "on":
			return false
		case "to", "from":
			return true
		}
	}
	return false
}

// grantees parses TO | FROM role, ... [WITH GRANT OPTION] [CASCADE |
// RESTRICT] of GRANT and REVOKE.
func (p *stmtParser) grantees(g *Grant) (Stmt, error) {
	var err error
	if g.Revoke {
		err = p.expect("from")
	} else {
		err = p.expect("to")
	}
	if err != nil {
		return nil, err
	}
	for {
		p.accept("group")
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		g.Grantees = append(g.Grantees, n)
		if !p.acceptOp(",") {
			break
		}
	}
	if p.accept("with", "grant", "option") || p.accept("with", "admin", "option") {
		return nil, p.unsupported("WITH GRANT OPTION and WITH ADMIN OPTION are")
	}
	if g.On == "role" && p.accept("granted", "by") {
		if _, err := p.name(); err != nil {
			return nil, err
		}
	}
	_ = p.accept("cascade") || p.accept("restrict")
	return g, nil
}
