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

// CheckKey checks that the target table has a primary key or unique
// index on exactly the columns key (names): an upsert needs one to find
// the row it replaces (PostgreSQL refuses ON CONFLICT without it; MySQL's
// ON DUPLICATE KEY UPDATE would silently insert a second row). The key's
// columns must be NOT NULL: a unique index lets any number of rows hold
// NULL, so an upsert or delete by a NULL key would never find the row it
// replaces, and the target would drift from the view without an error.
// Errors: 42P10 when no such key exists or one of its columns is
// nullable, or the target's error.
func CheckKey(ctx context.Context, db *sql.DB, k Kind, table string, key []string) error {
	schema, name, qualified := strings.Cut(table, ".")
	if !qualified {
		name = schema
	}
	var q string
	var args []any
	switch {
	case k == MySQL && qualified:
		q, args = "SELECT index_name, column_name, nullable <> 'YES' FROM information_schema.statistics WHERE non_unique = 0 AND table_schema = ? AND table_name = ?", []any{schema, name}
	case k == MySQL:
		q, args = "SELECT index_name, column_name, nullable <> 'YES' FROM information_schema.statistics WHERE non_unique = 0 AND table_schema = DATABASE() AND table_name = ?", []any{name}
	default:
		q = `SELECT i.indexrelid::text, a.attname, a.attnotnull FROM pg_index i
			JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
			WHERE i.indisunique AND i.indpred IS NULL AND i.indrelid = $1::regclass`
		args = []any{Postgres.QuoteTable(table)}
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return Error(err, "reading the keys of "+table)
	}
	defer rows.Close()
	indexes := map[string][]string{}
	nullable := map[string]bool{}
	for rows.Next() {
		var idx, col string
		var notNull bool
		if err := rows.Scan(&idx, &col, &notNull); err != nil {
			return Error(err, "reading the keys of "+table)
		}
		col = strings.ToLower(col)
		indexes[idx] = append(indexes[idx], col)
		if !notNull {
			nullable[col] = true
		}
	}
	if err := rows.Err(); err != nil {
		return Error(err, "reading the keys of "+table)
	}
	want := make([]string, len(key))
	for i, c := range key {
		want[i] = strings.ToLower(c)
	}
	slices.Sort(want)
	for _, cols := range indexes {
		slices.Sort(cols)
		if !slices.Equal(cols, want) {
			continue
		}
		for _, c := range cols {
			if nullable[c] {
				return pgerr.New(pgerr.InvalidColumnReference, "column \"%s\" of the key (%s) of the %s target table \"%s\" is nullable, which FORMAT UPSERT cannot keep exact", c, strings.Join(key, ", "), k, table).
					WithDetail("A unique index admits any number of NULL keys, so a row whose key is NULL could never be replaced or deleted.").
					WithHint("Declare the key columns NOT NULL in the target (a PRIMARY KEY does).")
			}
		}
		return nil
	}
	return pgerr.New(pgerr.InvalidColumnReference, "the %s target table \"%s\" has no primary key or unique index on (%s), which FORMAT UPSERT needs", k, table, strings.Join(key, ", ")).
		WithHint("Set primary_key to the target's key columns, or add a unique index on them.")
}

// CheckTwoPhase checks that the target can prepare transactions, which
// sink.two_phase_commit needs: PostgreSQL only does with
// max_prepared_transactions above zero (its default is zero); MySQL and
// MariaDB always can (XA). Errors: 55000 when the target cannot, or the
// target's error.
func CheckTwoPhase(ctx context.Context, db *sql.DB, k Kind) error {
	if k != Postgres {
		return nil
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT current_setting('max_prepared_transactions')::int").Scan(&n); err != nil {
		return Error(err, "reading max_prepared_transactions")
	}
	if n <= 0 {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "the PostgreSQL target cannot prepare transactions (max_prepared_transactions = 0), which sink.two_phase_commit needs").
			WithHint("Set max_prepared_transactions in the target's postgresql.conf and restart it, or leave sink.two_phase_commit off: the progress row alone gives exactly-once.")
	}
	return nil
}
