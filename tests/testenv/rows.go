package testenv

import (
	"context"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// TextRows runs sql with the simple query protocol and returns its rows
// in text form, columns joined by "|" (NULL as "NULL"), sorted, so that
// two servers' answers compare as strings whatever their row order.
func TextRows(ctx context.Context, conn *pgx.Conn, sql string) ([]string, error) {
	rs, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := []string{}
	for rs.Next() {
		vals := rs.RawValues()
		parts := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				parts[i] = "NULL"
			} else {
				parts[i] = string(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}
