package sql

import (
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// unsupportedStmts are PostgreSQL statements weir does not have: they are
// valid PostgreSQL, so they are refused as unsupported features (0A000),
// not as syntax errors.
var unsupportedStmts = wordSet(`listen notify unlisten vacuum analyze cluster reindex lock comment do call checkpoint load import
	refresh merge security reassign`)

// unsupportedAlters are the objects of ALTER statements weir does not
// have (ALTER SYSTEM it has).
var unsupportedAlters = wordSet(`table view materialized index sequence schema source sink function type
	database aggregate collation domain extension operator procedure publication subscription trigger`)

// unsupportedStmt returns the error for a statement weir does not parse
// itself: 0A000 naming the statement when PostgreSQL has it, else the
// syntax error at its first word.
func (p *stmtParser) unsupportedStmt() error {
	w := p.word(0)
	name := strings.ToUpper(w)
	switch {
	case w == "alter" && unsupportedAlters[p.word(1)]:
		name = "ALTER " + strings.ToUpper(p.word(1))
		if p.word(1) == "materialized" {
			name = "ALTER MATERIALIZED VIEW"
		}
	case unsupportedStmts[w]:
	default:
		return p.errHere()
	}
	return pgerr.New(pgerr.FeatureNotSupported, "%s is not supported", name).WithPosition(charPos(p.src, p.peek().Off))
}
