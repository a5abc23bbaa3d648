package sql

import (
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// CreateEnum is CREATE TYPE name AS ENUM ('label', ...).
type CreateEnum struct {
	Name   ObjectName
	Labels []string
}

// DomainConstraint is one constraint of CREATE DOMAIN or ALTER DOMAIN
// ... ADD: a CHECK (Expr, with VALUE for the value) or, when NotNull is
// set, NOT NULL. Name is "" when none was given.
type DomainConstraint struct {
	Name    string
	Expr    string
	NotNull bool
	// NotValid is NOT VALID after a CHECK of ALTER DOMAIN ... ADD: the
	// stored values are not checked.
	NotValid bool
}

// CreateDomain is CREATE DOMAIN name [AS] type [DEFAULT expr]
// [[CONSTRAINT name] NOT NULL | NULL | CHECK (expr)] ...
type CreateDomain struct {
	Name        ObjectName
	Base        TypeName
	Default     string
	Constraints []DomainConstraint
}

// AlterType is ALTER TYPE name with one action (Action):
//
//	"add value":    ADD VALUE [IF NOT EXISTS] 'Value' [BEFORE | AFTER 'Neighbor']
//	"rename value": RENAME VALUE 'Value' TO 'NewName'
//	"rename":       RENAME TO NewName
type AlterType struct {
	Name        ObjectName
	Action      string
	Value       string
	Neighbor    string
	Before      bool
	IfNotExists bool
	NewName     string
}

// AlterDomain is ALTER DOMAIN name with one action (Action): "set
// default" (Default), "drop default", "set not null", "drop not null",
// "add constraint" (Constraint), "drop constraint" (ConstraintName,
// IfExists) or "validate constraint" (ConstraintName).
type AlterDomain struct {
	Name           ObjectName
	Action         string
	Default        string
	Constraint     DomainConstraint
	ConstraintName string
	IfExists       bool
}

func (*CreateEnum) stmt()   {}
func (*CreateDomain) stmt() {}
func (*AlterType) stmt()    {}
func (*AlterDomain) stmt()  {}

// stringLit parses a string constant.
func (p *stmtParser) stringLit() (string, error) {
	t := p.peek()
	if t.Kind != TString {
		return "", p.errHere()
	}
	p.pos++
	return t.Val, nil
}

// createType parses CREATE TYPE after TYPE: only the enum form is
// weir's; the composite, range and base forms are 0A000.
func (p *stmtParser) createType() (Stmt, error) {
	n, err := p.qualifiedName(false)
	if err != nil {
		return nil, err
	}
	if p.atEnd() {
		return nil, p.unsupported("CREATE TYPE without a definition (a shell type) is")
	}
	if !p.accept("as") {
		if t := p.peek(); t.Kind == TOp && t.Val == "(" {
			return nil, p.unsupported("CREATE TYPE of a base type is")
		}
		return nil, p.errHere()
	}
	switch {
	case p.accept("enum"):
	case p.word(0) == "range":
		return nil, p.unsupported("CREATE TYPE ... AS RANGE is")
	case p.peek().Kind == TOp && p.peek().Val == "(":
		return nil, p.unsupported("CREATE TYPE ... AS (composite types) is")
	default:
		return nil, p.errHere()
	}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	ce := &CreateEnum{Name: n}
	if p.acceptOp(")") {
		return ce, nil
	}
	for {
		s, err := p.stringLit()
		if err != nil {
			return nil, err
		}
		if len(s) > 63 {
			return nil, pgerr.New(pgerr.InvalidName, "invalid enum label \"%s\"", s).WithDetail("Labels must be 63 bytes or less.")
		}
		ce.Labels = append(ce.Labels, s)
		if !p.acceptOp(",") {
			break
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return ce, nil
}

// alterType parses ALTER TYPE after TYPE.
func (p *stmtParser) alterType() (Stmt, error) {
	n, err := p.qualifiedName(false)
	if err != nil {
		return nil, err
	}
	a := &AlterType{Name: n}
	switch {
	case p.accept("add", "value"):
		a.Action = "add value"
		a.IfNotExists = p.accept("if", "not", "exists")
		if a.Value, err = p.stringLit(); err != nil {
			return nil, err
		}
		switch {
		case p.accept("before"):
			a.Before = true
			fallthrough
		case p.accept("after"):
			if a.Neighbor, err = p.stringLit(); err != nil {
				return nil, err
			}
		}
	case p.accept("rename", "value"):
		a.Action = "rename value"
		if a.Value, err = p.stringLit(); err != nil {
			return nil, err
		}
		if err := p.expect("to"); err != nil {
			return nil, err
		}
		if a.NewName, err = p.stringLit(); err != nil {
			return nil, err
		}
	case p.accept("rename", "to"):
		a.Action = "rename"
		if a.NewName, err = p.name(); err != nil {
			return nil, err
		}
	default:
		if p.atEnd() {
			return nil, p.errHere()
		}
		return nil, p.unsupported("ALTER TYPE ... " + strings.ToUpper(p.word(0)) + " is")
	}
	return a, nil
}

// domainConstraints parses the constraints of CREATE DOMAIN (and its
// DEFAULT) into d.
// alter is ALTER DOMAIN ... ADD's grammar (a table constraint: a CHECK,
// which may be NOT VALID, and no NOT NULL, NULL or DEFAULT).
func (p *stmtParser) domainConstraints(d *CreateDomain, alter bool) error {
	for !p.atEnd() {
		at := p.peek()
		name := ""
		if p.accept("constraint") {
			n, err := p.name()
			if err != nil {
				return err
			}
			name = n
		}
		if alter && (p.word(0) == "not" || p.word(0) == "null" || p.word(0) == "default") {
			return p.errHere()
		}
		switch {
		case name == "" && p.accept("default"):
			start := p.pos
			text, _, err := p.bExpr()
			if err != nil {
				return err
			}
			if err := p.noParams(start, p.pos); err != nil {
				return err
			}
			if d.Default != "" {
				return pgerr.New(pgerr.SyntaxError, "multiple default expressions").WithPosition(charPos(p.src, at.Off))
			}
			d.Default = text
		case p.accept("not", "null"):
			d.Constraints = append(d.Constraints, DomainConstraint{Name: name, NotNull: true})
		case p.accept("null"):
		case p.word(0) == "check":
			p.pos++
			start := p.pos
			text, _, err := p.parenText()
			if err != nil {
				return err
			}
			if err := p.noParams(start, p.pos); err != nil {
				return err
			}
			c := DomainConstraint{Name: name, Expr: text}
			if alter {
				c.NotValid = p.accept("not", "valid")
			} else if p.word(0) == "not" && p.word(1) == "valid" {
				p.pos++
				return p.errHere()
			}
			d.Constraints = append(d.Constraints, c)
		case p.word(0) == "collate":
			return p.unsupported("COLLATE in CREATE DOMAIN is")
		default:
			return p.errHere()
		}
	}
	return nil
}

// createDomain parses CREATE DOMAIN after DOMAIN.
func (p *stmtParser) createDomain() (Stmt, error) {
	p.unpositioned = true // a domain's expressions are analysed without positions
	n, err := p.qualifiedName(false)
	if err != nil {
		return nil, err
	}
	p.accept("as")
	if p.atEnd() {
		return nil, p.errHere()
	}
	tn, next, err := parseTypeAt(p.src, p.toks, p.pos)
	if err != nil {
		return nil, err
	}
	p.pos = next
	d := &CreateDomain{Name: n, Base: tn}
	if err := p.domainConstraints(d, false); err != nil {
		return nil, err
	}
	return d, nil
}

// alterDomain parses ALTER DOMAIN after DOMAIN.
func (p *stmtParser) alterDomain() (Stmt, error) {
	n, err := p.qualifiedName(false)
	if err != nil {
		return nil, err
	}
	a := &AlterDomain{Name: n}
	p.unpositioned = true
	switch {
	case p.accept("set", "default"):
		a.Action = "set default"
		start := p.pos
		text, _, err := p.expr(len(p.toks) - 1)
		if err != nil {
			return nil, err
		}
		if err := p.noParams(start, p.pos); err != nil {
			return nil, err
		}
		a.Default = text
	case p.accept("drop", "default"):
		a.Action = "drop default"
	case p.accept("set", "not", "null"):
		a.Action = "set not null"
	case p.accept("drop", "not", "null"):
		a.Action = "drop not null"
	case p.accept("add"):
		a.Action = "add constraint"
		var d CreateDomain
		if err := p.domainConstraints(&d, true); err != nil {
			return nil, err
		}
		if len(d.Constraints) != 1 || d.Default != "" {
			return nil, p.errHere()
		}
		a.Constraint = d.Constraints[0]
	case p.accept("validate", "constraint"):
		a.Action = "validate constraint"
		if a.ConstraintName, err = p.name(); err != nil {
			return nil, err
		}
	case p.accept("drop", "constraint"):
		a.Action = "drop constraint"
		a.IfExists = p.accept("if", "exists")
		if a.ConstraintName, err = p.name(); err != nil {
			return nil, err
		}
		if !p.accept("cascade") {
			p.accept("restrict")
		}
	default:
		if p.atEnd() {
			return nil, p.errHere()
		}
		return nil, p.unsupported("ALTER DOMAIN ... " + strings.ToUpper(p.word(0)) + " is")
	}
	return a, nil
}
