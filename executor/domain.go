package executor

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// domainCheck checks values coerced to a domain (planner.Domain): NOT
// NULL first, then each CHECK, with PostgreSQL's errors: 23502 "domain
// d does not allow null values", 23514 "value for domain d violates
// check constraint "c"".
type domainCheck struct {
	d      *planner.Domain
	checks []Evaluator
}

func compileDomain(d *planner.Domain) (*domainCheck, error) {
	if d == nil {
		return nil, nil
	}
	dc := &domainCheck{d: d}
	for _, c := range d.Checks {
		ev, err := Compile(c.Expr)
		if err != nil {
			return nil, err
		}
		dc.checks = append(dc.checks, ev)
	}
	return dc, nil
}

// element is dc for one element of an array of the domain.
func (dc *domainCheck) element() *domainCheck {
	d := *dc.d
	d.Array = false
	return &domainCheck{d: &d, checks: dc.checks}
}

func (dc *domainCheck) nullError() error {
	return dc.at(pgerr.New(pgerr.NotNullViolation, "domain %s does not allow null values", dc.d.Name))
}

func (dc *domainCheck) checkError(k int) error {
	return dc.at(pgerr.New(pgerr.CheckViolation, "value for domain %s violates check constraint \"%s\"", dc.d.Name, dc.d.Checks[k].Name).
		WithConstraint(dc.d.Checks[k].Name))
}

// at positions err where the domain's violations are reported
// (planner.Domain.Pos), if anywhere.
func (dc *domainCheck) at(err *pgerr.Error) error {
	if dc.d.Pos > 0 {
		return err.WithPosition(dc.d.Pos)
	}
	return err
}

// vec checks the values of v for the rows of in that are visible.
func (dc *domainCheck) vec(ctx *EvalCtx, v *types.Vec, in *types.Chunk) error {
	n := in.Len()
	if dc.d.Array {
		for i := 0; i < n; i++ {
			if in.Visible(i) {
				if err := dc.datum(ctx, v.Get(i), v.T); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if dc.d.NotNull {
		for i := 0; i < n; i++ {
			if in.Visible(i) && v.Nulls[i] {
				return dc.nullError()
			}
		}
	}
	if len(dc.checks) == 0 {
		return nil
	}
	c := types.NewChunkFromVecs([]*types.Vec{v}, n)
	c.Vis = in.Vis
	for k, ev := range dc.checks {
		r, err := ev.Eval(ctx, c)
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if !in.Visible(i) {
				continue
			}
			if d := r.Get(i); !d.Null && d.I == 0 {
				return dc.checkError(k)
			}
		}
	}
	return nil
}

// datum checks one value of type t: each element of an array of the
// domain (a NULL array passes).
func (dc *domainCheck) datum(ctx *EvalCtx, d types.Datum, t types.T) error {
	if dc.d.Array {
		if d.Null {
			return nil
		}
		elems, err := types.ArrayElems(d.S, t, ctx.loc())
		if err != nil {
			return err
		}
		elem := dc.element()
		for _, e := range elems {
			if err := elem.datum(ctx, e, t.Elem()); err != nil {
				return err
			}
		}
		return nil
	}
	if d.Null && dc.d.NotNull {
		return dc.nullError()
	}
	if len(dc.checks) == 0 {
		return nil
	}
	c := types.NewChunk([]types.T{t}, 1)
	c.AppendRow(types.OpInsert, types.Row{d})
	for k, ev := range dc.checks {
		r, err := ev.Eval(ctx, c)
		if err != nil {
			return err
		}
		if v := r.Get(0); !v.Null && v.I == 0 {
			return dc.checkError(k)
		}
	}
	return nil
}

// DomainChecks checks the values of rows written to a table against the
// domains of its columns (planner.RowRules.Domains).
type DomainChecks struct {
	cols []*domainCheck
	ts   []types.T
}

// NewDomainChecks compiles doms, by column of a relation whose column
// types are ts.
func NewDomainChecks(doms []*planner.Domain, ts []types.T) (*DomainChecks, error) {
	if doms == nil {
		return nil, nil
	}
	out := &DomainChecks{ts: ts}
	for _, d := range doms {
		dc, err := compileDomain(d)
		if err != nil {
			return nil, err
		}
		out.cols = append(out.cols, dc)
	}
	return out, nil
}

// Check checks row's columns that cols marks (all when cols is nil):
// the values an INSERT writes, or those an UPDATE sets.
func (dcs *DomainChecks) Check(row types.Row, ec *EvalCtx, cols []bool) error {
	if dcs == nil {
		return nil
	}
	for i, dc := range dcs.cols {
		if dc == nil || cols != nil && (i >= len(cols) || !cols[i]) {
			continue
		}
		if err := dc.datum(ec, row[i], dcs.ts[i]); err != nil {
			return err
		}
	}
	return nil
}
