package sqlsink

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// CheckTable compares the sink's columns with the target table: the
// table must exist, hold a column of each sink column's name (compared
// case-insensitively in MySQL, whose column names are) and of a type the
// mapping allows (Compatible). Errors: 42P01 for a missing table, 42703
// for a missing column, 42804 for an incompatible type, or the target's
// error.
func CheckTable(ctx context.Context, db *sql.DB, k Kind, table string, cols []Column) error {
	var q string
	var args []any
	schema, name, qualified := strings.Cut(table, ".")
	if !qualified {
		name = schema
	}
	switch {
	case k == MySQL && qualified:
		q, args = "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = ? AND table_name = ?", []any{schema, name}
	case k == MySQL:
		q, args = "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?", []any{name}
	case qualified:
		q, args = "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2", []any{schema, name}
	default:
		q, args = "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1", []any{name}
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return Error(err, "reading the columns of "+table)
	}
	defer rows.Close()
	target := map[string]string{}
	for rows.Next() {
		var c, t string
		if err := rows.Scan(&c, &t); err != nil {
			return Error(err, "reading the columns of "+table)
		}
		if k == MySQL {
			c = strings.ToLower(c)
		}
		target[c] = strings.ToLower(t)
	}
	if err := rows.Err(); err != nil {
		return Error(err, "reading the columns of "+table)
	}
	if len(target) == 0 {
		return pgerr.New(pgerr.UndefinedTable, "the %s target table \"%s\" does not exist", k, table).
			WithHint("Create it in the target database first; weir does not create target tables.")
	}
	for _, c := range cols {
		n := c.Name
		if k == MySQL {
			n = strings.ToLower(n)
		}
		tt, ok := target[n]
		if !ok {
			return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of the sink does not exist in the %s target table \"%s\"", c.Name, k, table)
		}
		allowed := Compatible(k, c.T)
		if len(allowed) == 0 {
			return pgerr.New(pgerr.FeatureNotSupported, "column \"%s\" is of type %s, which a %s sink cannot write", c.Name, c.T, k)
		}
		if !slices.Contains(allowed, tt) {
			return pgerr.New(pgerr.DatatypeMismatch, "column \"%s\" is of type %s in the sink but %s in the %s target table \"%s\"", c.Name, c.T, tt, k, table).
				WithHint("A %s column can be written to a target column of type %s.", c.T, strings.Join(allowed, ", "))
		}
	}
	return nil
}
