package sql

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
)

// This file is weir's parser driver: the TiDB parser builds literal values
// and parameter markers through hooks (ast.NewValueExpr and friends) that a
// driver package must fill in. Ours keeps literals as the plain Go values
// the binder needs, and keeps decimal literals as their exact text so the
// binder can make Postgres numerics out of them.

// Literal is a literal value in a TiDB AST. Value is one of:
//
//	nil          NULL
//	bool         TRUE / FALSE
//	int64        an integer literal that fits in int64
//	uint64       a larger integer literal
//	DecimalText  a literal with a decimal point, e.g. 1.50
//	float64      a literal with an exponent, e.g. 1e5
//	string       a string literal (already unescaped)
//	[]byte       a hex (x'..') or bit (b'..') literal
type Literal struct {
	ast.TexprNode
	Value  any
	offset int
}

// DecimalText is the exact text of a decimal literal ("1.50").
type DecimalText string

// ParamMarker is a `?` in the bridged text, standing for `$n`. Offset is
// its byte offset in the bridged text; Order, its 0-based position among
// the statement's markers, is set by Parse (see Query.Params).
type ParamMarker struct {
	Literal
	Offset int
	Order  int
}

var (
	_ ast.ValueExpr       = (*Literal)(nil)
	_ ast.ParamMarkerExpr = (*ParamMarker)(nil)
)

func init() {
	ast.NewValueExpr = func(value any, _ string, _ string) ast.ValueExpr {
		if l, ok := value.(*Literal); ok {
			return l
		}
		return &Literal{Value: value, offset: -1}
	}
	ast.NewParamMarkerExpr = func(offset int) ast.ParamMarkerExpr {
		return &ParamMarker{Literal: Literal{offset: -1}, Offset: offset}
	}
	ast.NewDecimal = func(s string) (any, error) { return DecimalText(s), nil }
	ast.NewHexLiteral = func(s string) (any, error) { return decodeHexLiteral(s) }
	ast.NewBitLiteral = func(s string) (any, error) { return decodeBitLiteral(s) }
}

// SetValue implements ast.ValueExpr.
func (l *Literal) SetValue(v any) { l.Value = v }

// GetValue implements ast.ValueExpr.
func (l *Literal) GetValue() any { return l.Value }

// GetDatumString implements ast.ValueExpr.
func (l *Literal) GetDatumString() string { return l.GetString() }

// GetString implements ast.ValueExpr: the literal's text form.
func (l *Literal) GetString() string {
	switch v := l.Value.(type) {
	case nil:
		return ""
	case string:
		return v
	case []byte:
		return string(v)
	case DecimalText:
		return string(v)
	default:
		return fmt.Sprint(v)
	}
}

// GetProjectionOffset implements ast.ValueExpr.
func (l *Literal) GetProjectionOffset() int { return l.offset }

// SetProjectionOffset implements ast.ValueExpr.
func (l *Literal) SetProjectionOffset(o int) { l.offset = o }

// Restore implements ast.Node, writing the literal in SQL form.
func (l *Literal) Restore(ctx *format.RestoreCtx) error {
	switch v := l.Value.(type) {
	case nil:
		ctx.WriteKeyWord("NULL")
	case bool:
		if v {
			ctx.WriteKeyWord("TRUE")
		} else {
			ctx.WriteKeyWord("FALSE")
		}
	case string:
		ctx.WriteString(v)
	case []byte:
		ctx.WritePlainf("x'%x'", v)
	default:
		ctx.WritePlain(l.GetString())
	}
	return nil
}

// Format implements ast.ExprNode.
func (l *Literal) Format(w io.Writer) {
	switch v := l.Value.(type) {
	case string:
		fmt.Fprint(w, "'"+strings.ReplaceAll(v, "'", "''")+"'")
	case nil:
		fmt.Fprint(w, "NULL")
	default:
		fmt.Fprint(w, l.GetString())
	}
}

// Accept implements ast.Node.
func (l *Literal) Accept(v ast.Visitor) (ast.Node, bool) {
	n, skip := v.Enter(l)
	if skip {
		return v.Leave(n)
	}
	return v.Leave(n)
}

// SetOrder implements ast.ParamMarkerExpr.
func (p *ParamMarker) SetOrder(o int) { p.Order = o }

// Restore implements ast.Node.
func (p *ParamMarker) Restore(ctx *format.RestoreCtx) error {
	ctx.WritePlain("?")
	return nil
}

// Format implements ast.ExprNode.
func (p *ParamMarker) Format(w io.Writer) { fmt.Fprint(w, "?") }

// Accept implements ast.Node.
func (p *ParamMarker) Accept(v ast.Visitor) (ast.Node, bool) {
	n, skip := v.Enter(p)
	if skip {
		return v.Leave(n)
	}
	return v.Leave(n)
}

// decodeHexLiteral decodes X'..' or 0x.. literal text.
func decodeHexLiteral(s string) ([]byte, error) {
	t := s
	switch {
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
		t = t[2:]
	case len(t) >= 3 && (t[0] == 'x' || t[0] == 'X') && t[1] == '\'':
		t = t[2 : len(t)-1]
	}
	if len(t)%2 == 1 {
		t = "0" + t
	}
	out := make([]byte, len(t)/2)
	for i := range out {
		b, err := strconv.ParseUint(t[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, fmt.Errorf("invalid hexadecimal literal %q", s)
		}
		out[i] = byte(b)
	}
	return out, nil
}

// decodeBitLiteral decodes B'..' or 0b.. literal text.
func decodeBitLiteral(s string) ([]byte, error) {
	t := s
	switch {
	case strings.HasPrefix(t, "0b") || strings.HasPrefix(t, "0B"):
		t = t[2:]
	case len(t) >= 3 && (t[0] == 'b' || t[0] == 'B') && t[1] == '\'':
		t = t[2 : len(t)-1]
	}
	for len(t)%8 != 0 {
		t = "0" + t
	}
	out := make([]byte, len(t)/8)
	for i := range out {
		b, err := strconv.ParseUint(t[8*i:8*i+8], 2, 8)
		if err != nil {
			return nil, fmt.Errorf("invalid bit literal %q", s)
		}
		out[i] = byte(b)
	}
	return out, nil
}
