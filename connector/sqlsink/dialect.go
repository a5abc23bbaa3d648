package sqlsink

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Kind is the target database's kind.
type Kind int

// The target kinds.
const (
	// Postgres is PostgreSQL (10 or later), through pgx.
	Postgres Kind = iota
	// MySQL is MySQL 8 or MariaDB 10.5 or later, through
	// go-sql-driver/mysql.
	MySQL
)

// String returns the connector name of k.
func (k Kind) String() string {
	if k == MySQL {
		return "mysql"
	}
	return "postgres"
}

// ProgressTable is the table of the target database in which every
// exactly-once sink actor keeps the last epoch it delivered.
const ProgressTable = "weir_sink_progress"

// driverName is the database/sql driver of k.
func (k Kind) driverName() string {
	if k == MySQL {
		return "mysql"
	}
	return "pgx"
}

// Quote returns name as a quoted identifier of k.
func (k Kind) Quote(name string) string {
	if k == MySQL {
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// QuoteTable quotes a table name that may be schema-qualified
// ("schema.table").
func (k Kind) QuoteTable(name string) string {
	if s, t, ok := strings.Cut(name, "."); ok {
		return k.Quote(s) + "." + k.Quote(t)
	}
	return k.Quote(name)
}

// progressDDL creates the progress table when it is missing.
func (k Kind) progressDDL() string {
	if k == MySQL {
		return "CREATE TABLE IF NOT EXISTS " + ProgressTable +
			" (sink VARCHAR(255) NOT NULL, actor INT NOT NULL, epoch BIGINT NOT NULL, PRIMARY KEY (sink, actor))"
	}
	return "CREATE TABLE IF NOT EXISTS " + ProgressTable +
		" (sink text NOT NULL, actor integer NOT NULL, epoch bigint NOT NULL, PRIMARY KEY (sink, actor))"
}

// progressSelect reads and locks a sink actor's progress row.
func (k Kind) progressSelect(sink string, actor int) string {
	return "SELECT epoch FROM " + ProgressTable + " WHERE sink = " + k.stringLit(sink) +
		" AND actor = " + strconv.Itoa(actor) + " FOR UPDATE"
}

// progressUpsert sets a sink actor's progress row to epoch.
func (k Kind) progressUpsert(sink string, actor int, epoch uint64) string {
	v := " (sink, actor, epoch) VALUES (" + k.stringLit(sink) + ", " + strconv.Itoa(actor) + ", " +
		strconv.FormatUint(epoch, 10) + ")"
	if k == MySQL {
		return "INSERT INTO " + ProgressTable + v + " ON DUPLICATE KEY UPDATE epoch = VALUES(epoch)"
	}
	return "INSERT INTO " + ProgressTable + v + " ON CONFLICT (sink, actor) DO UPDATE SET epoch = EXCLUDED.epoch"
}

// stringLit is s as a character string literal of k. A MySQL session
// of a sink runs with NO_BACKSLASH_ESCAPES (the DSN's sql_mode), so only
// quotes are doubled there too; the utf8mb4 introducer makes the
// literal's character set that of weir's text whatever the connection's.
func (k Kind) stringLit(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if k == MySQL {
		return "_utf8mb4" + q
	}
	return q
}

// Literal appends d, a value of weir type t, to b as a SQL literal of
// k that the target converts to its column's type (the mapping of
// docs/sinks.md). Errors: 22008 / 22003 for a value the target kind
// cannot hold (an infinite timestamp or a NaN in MySQL), 22021 for a NUL
// character PostgreSQL text cannot hold.
func (k Kind) Literal(b []byte, d types.Datum, t types.T) ([]byte, error) {
	if d.Null {
		return append(b, "NULL"...), nil
	}
	if k == MySQL {
		return mysqlLiteral(b, d, t)
	}
	switch t.ID {
	case types.Bool:
		if d.I != 0 {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case types.Int2, types.Int4, types.Int8:
		return strconv.AppendInt(b, d.I, 10), nil
	case types.Text, types.Varchar, types.Bpchar, types.Char, types.Name, types.Jsonb, types.Json:
		if strings.IndexByte(d.S, 0) >= 0 {
			return b, pgerr.New(pgerr.CharacterNotInRepertoire, "a text value with a NUL character cannot be written to PostgreSQL")
		}
	}
	s := types.FormatText(d, t, time.UTC)
	b = append(b, '\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			b = append(b, '\'')
		}
		b = append(b, s[i])
	}
	return append(b, '\''), nil
}

func mysqlLiteral(b []byte, d types.Datum, t types.T) ([]byte, error) {
	switch t.ID {
	case types.Bool:
		if d.I != 0 {
			return append(b, '1'), nil
		}
		return append(b, '0'), nil
	case types.Int2, types.Int4, types.Int8:
		return strconv.AppendInt(b, d.I, 10), nil
	case types.Float4, types.Float8:
		if math.IsNaN(d.F) || math.IsInf(d.F, 0) {
			return b, pgerr.New(pgerr.NumericValueOutOfRange, "MySQL cannot store the floating-point value %s", types.FormatText(d, t, nil))
		}
		bits := 64
		if t.ID == types.Float4 {
			bits = 32
		}
		return strconv.AppendFloat(b, d.F, 'g', -1, bits), nil
	case types.Numeric:
		s := types.FormatText(d, t, nil)
		if s == "NaN" || strings.Contains(s, "Infinity") {
			return b, pgerr.New(pgerr.NumericValueOutOfRange, "MySQL cannot store the numeric value %s", s)
		}
		return append(b, s...), nil
	case types.Bytea:
		if d.S == "" {
			return append(b, "''"...), nil
		}
		b = append(b, "X'"...)
		b = hex.AppendEncode(b, []byte(d.S))
		return append(b, '\''), nil
	case types.Date, types.Timestamp, types.Timestamptz:
		if d.I == types.NegInfinity || d.I == types.PosInfinity {
			return b, pgerr.New(pgerr.DatetimeFieldOverflow, "MySQL cannot store an infinite %s", t)
		}
		var s string
		if t.ID == types.Date {
			s = types.FormatDate(d.I)
		} else {
			// A timestamptz is written as its UTC wall time; the session's
			// time_zone is UTC, so a TIMESTAMP column stores the instant.
			s = types.FormatTimestamp(d.I)
		}
		if strings.HasSuffix(s, " BC") {
			return b, pgerr.New(pgerr.DatetimeFieldOverflow, "MySQL cannot store the date %s", s)
		}
		return append(append(append(b, '\''), s...), '\''), nil
	case types.Time:
		return append(append(append(b, '\''), types.FormatTime(d.I)...), '\''), nil
	}
	return append(b, MySQL.stringLit(types.FormatText(d, t, time.UTC))...), nil
}

// compatible lists, per weir type, the target column types (as
// information_schema.columns.data_type names them, lower case) a sink
// column of that type may be written to.
var compatible = map[Kind]map[types.TypeID][]string{
	Postgres: {
		types.Bool:        {"boolean"},
		types.Int2:        {"smallint", "integer", "bigint", "numeric"},
		types.Int4:        {"integer", "bigint", "numeric"},
		types.Int8:        {"bigint", "numeric"},
		types.Float4:      {"real", "double precision"},
		types.Float8:      {"double precision"},
		types.Numeric:     {"numeric"},
		types.Text:        {"text", "character varying"},
		types.Varchar:     {"text", "character varying"},
		types.Bpchar:      {"character", "text", "character varying"},
		types.Bytea:       {"bytea"},
		types.Date:        {"date"},
		types.Time:        {"time without time zone"},
		types.Timestamp:   {"timestamp without time zone"},
		types.Timestamptz: {"timestamp with time zone"},
		types.Interval:    {"interval"},
		types.Jsonb:       {"jsonb", "json"},
		types.Json:        {"json", "jsonb"},
		types.Uuid:        {"uuid", "text", "character varying"},
	},
	MySQL: {
		types.Bool:        {"tinyint", "smallint", "int", "bigint"},
		types.Int2:        {"smallint", "mediumint", "int", "bigint", "decimal"},
		types.Int4:        {"int", "bigint", "decimal"},
		types.Int8:        {"bigint", "decimal"},
		types.Float4:      {"float", "double"},
		types.Float8:      {"double"},
		types.Numeric:     {"decimal"},
		types.Text:        {"varchar", "char", "tinytext", "text", "mediumtext", "longtext"},
		types.Varchar:     {"varchar", "char", "tinytext", "text", "mediumtext", "longtext"},
		types.Bpchar:      {"char", "varchar", "tinytext", "text", "mediumtext", "longtext"},
		types.Bytea:       {"varbinary", "binary", "tinyblob", "blob", "mediumblob", "longblob"},
		types.Date:        {"date"},
		types.Time:        {"time"},
		types.Timestamp:   {"datetime", "timestamp"},
		types.Timestamptz: {"datetime", "timestamp"},
		types.Interval:    {"varchar", "text", "mediumtext", "longtext"},
		// MariaDB's JSON is LONGTEXT with a check; MySQL's is json.
		types.Jsonb: {"json", "longtext", "text", "mediumtext"},
		types.Json:  {"json", "longtext", "text", "mediumtext"},
		// A uuid is written as its text (CHAR(36)); MariaDB 10.7+ has a
		// uuid type that reads the same text.
		types.Uuid: {"char", "varchar", "uuid", "tinytext", "text", "mediumtext", "longtext"},
	},
}

// Compatible returns the target column types (information_schema names)
// that a sink column of type t may be written to; none when t cannot be
// sunk into k.
func Compatible(k Kind, t types.T) []string { return compatible[k][t.ID] }
