// Package pgerr is weir's single catalog of user-facing errors. Every error
// that reaches a client carries a SQLSTATE code from this file, following the
// PostgreSQL error code table (Appendix A of the PostgreSQL 15 manual,
// https://www.postgresql.org/docs/15/errcodes-appendix.html).
//
// It is a leaf package with no imports from weir, so every other package
// (types, storage, sql, planner, executor, engine, wire) may use it.
package pgerr

import (
	"errors"
	"fmt"
)

// Code is a five-character SQLSTATE.
type Code string

// SQLSTATE codes used by weir. Names follow the PostgreSQL condition names.
const (
	SuccessfulCompletion        Code = "00000"
	Warning                     Code = "01000"
	FeatureNotSupported         Code = "0A000"
	InvalidTransactionState     Code = "25000"
	ActiveSQLTransaction        Code = "25001"
	NoActiveSQLTransaction      Code = "25P01"
	InFailedSQLTransaction      Code = "25P02"
	InvalidSavepointSpec        Code = "3B001" // invalid_savepoint_specification
	CardinalityViolation        Code = "21000"
	DataException               Code = "22000"
	StringDataRightTruncation   Code = "22001"
	NumericValueOutOfRange      Code = "22003"
	NullValueNotAllowed         Code = "22004"
	InvalidDatetimeFormat       Code = "22007"
	DatetimeFieldOverflow       Code = "22008"
	InvalidTimeZoneDisplacement Code = "22009"
	InvalidParameterValue       Code = "22023"
	BadCopyFileFormat           Code = "22P04"
	CantChangeRuntimeParam      Code = "55P02"
	SerializationFailure        Code = "40001"
	DivisionByZero              Code = "22012"
	IntervalFieldOverflow       Code = "22015"
	InvalidTextRepresentation   Code = "22P02"
	InvalidBinaryRepresentation Code = "22P03"
	InvalidEscapeSequence       Code = "22025"
	InvalidRegularExpression    Code = "2201B"
	InvalidRowCountInLimit      Code = "2201W"
	InvalidRowCountInOffset     Code = "2201X"
	CharacterNotInRepertoire    Code = "22021"
	UntranslatableCharacter     Code = "22P05"
	InvalidJSONText             Code = "22P02"
	ArraySubscriptError         Code = "2202E"
	InvalidTablesampleArgument  Code = "2202H"
	InvalidTablesampleRepeat    Code = "2202G"
	// The SQL/JSON path errors (jsonpath evaluation).
	InvalidArgumentForSQLJSONDatetime Code = "22031"
	InvalidSQLJSONSubscript           Code = "22033"
	NonNumericSQLJSONItem             Code = "22036"
	SingletonSQLJSONItemRequired      Code = "22038"
	SQLJSONArrayNotFound              Code = "22039"
	SQLJSONMemberNotFound             Code = "2203A"
	SQLJSONNumberNotFound             Code = "2203B"
	SQLJSONObjectNotFound             Code = "2203C"
	SequenceGeneratorLimit            Code = "2200H" // sequence_generator_limit_exceeded
	GeneratedAlways                   Code = "428C9"
	NotNullViolation                  Code = "23502"
	ForeignKeyViolation               Code = "23503"
	UniqueViolation                   Code = "23505"
	CheckViolation                    Code = "23514"
	InvalidCursorState                Code = "24000"
	InvalidCursorName                 Code = "34000"
	SyntaxError                       Code = "42601"
	InsufficientPrivilege             Code = "42501"
	UndefinedColumn                   Code = "42703"
	UndefinedFunction                 Code = "42883"
	UndefinedTable                    Code = "42P01"
	UndefinedParameter                Code = "42P02"
	UndefinedObject                   Code = "42704"
	DuplicateColumn                   Code = "42701"
	DuplicateDatabase                 Code = "42P04"
	DuplicateSchema                   Code = "42P06"
	DuplicateObject                   Code = "42710"
	DuplicateTable                    Code = "42P07"
	DuplicatePreparedStatement        Code = "42P05"
	DuplicateCursor                   Code = "42P03"
	InvalidCursorDefinition           Code = "42P11"
	InvalidFunctionDefinition         Code = "42P13"
	DuplicateFunction                 Code = "42723"
	InvalidGrantOperation             Code = "0LP01"
	DuplicateAlias                    Code = "42712"
	AmbiguousColumn                   Code = "42702"
	AmbiguousFunction                 Code = "42725"
	AmbiguousParameter                Code = "42P08"
	DatatypeMismatch                  Code = "42804"
	WrongObjectType                   Code = "42809"
	CannotCoerce                      Code = "42846"
	GroupingError                     Code = "42803"
	WindowingError                    Code = "42P20"
	InvalidColumnReference            Code = "42P10"
	InvalidForeignKey                 Code = "42830"
	InvalidTableDefinition            Code = "42P16"
	InvalidSchemaDefinition           Code = "42P15"
	InvalidObjectDefinition           Code = "42P17"
	InvalidRecursion                  Code = "42P19"
	IndeterminateDatatype             Code = "42P18"
	CollationMismatch                 Code = "42P21"
	IndeterminateCollation            Code = "42P22"
	InvalidColumnDefinition           Code = "42611"
	InvalidName                       Code = "42602"
	TooManyColumns                    Code = "54011"
	TooManyArguments                  Code = "54023"
	DependentObjectsStillExist        Code = "2BP01"
	InvalidSQLStatementName           Code = "26000"
	InvalidCatalogName                Code = "3D000"
	InvalidSchemaName                 Code = "3F000"
	ProtocolViolation                 Code = "08P01"
	ConnectionException               Code = "08000"
	UnableToConnect                   Code = "08001" // sqlclient_unable_to_establish_sqlconnection
	QueryCanceled                     Code = "57014"
	AdminShutdown                     Code = "57P01"
	CannotConnectNow                  Code = "57P03"
	ProgramLimitExceeded              Code = "54000"
	StatementTooComplex               Code = "54001" // Postgres: stack depth limit exceeded
	ObjectNotInPrerequisiteState      Code = "55000"
	ObjectInUse                       Code = "55006"
	LockNotAvailable                  Code = "55P03"
	DeadlockDetected                  Code = "40P01"
	DiskFull                          Code = "53100"
	OutOfMemory                       Code = "53200"
	ConfigurationLimitExceeded        Code = "53400"
	IOError                           Code = "58030"
	InternalError                     Code = "XX000"
	DataCorrupted                     Code = "XX001"
)

// Error is a user-facing error. Position, when non-zero, is a 1-based
// character offset into the statement text, as Postgres reports it in the
// ErrorResponse 'P' field.
type Error struct {
	Code     Code
	Severity string // "ERROR" unless set; "FATAL" ends the session
	Message  string
	Detail   string
	Hint     string
	// Where is the context line psql prints as CONTEXT (ErrorResponse 'W').
	Where    string
	Position int
	// SchemaName, TableName, ColumnName and ConstraintName name the
	// object an integrity error is about (ErrorResponse 's', 't', 'c',
	// 'n'), as Postgres fills them for 23xxx errors.
	SchemaName     string
	TableName      string
	ColumnName     string
	ConstraintName string
	cause          error
}

// Error implements error.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the wrapped cause, if any.
func (e *Error) Unwrap() error { return e.cause }

// New returns an error with code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with code whose message is msg followed by the
// cause's message, keeping the cause for errors.Is/As.
func Wrap(code Code, cause error, msg string) *Error {
	m := msg
	if cause != nil {
		if m != "" {
			m += ": "
		}
		m += cause.Error()
	}
	return &Error{Code: code, Message: m, cause: cause}
}

// WithDetail returns e with Detail set.
func (e *Error) WithDetail(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
}

// WithHint returns e with Hint set.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// WithWhere returns e with the context (Where) set.
func (e *Error) WithWhere(format string, args ...any) *Error {
	e.Where = fmt.Sprintf(format, args...)
	return e
}

// WithTable returns e naming the table (and its schema) it is about.
func (e *Error) WithTable(schema, table string) *Error {
	e.SchemaName, e.TableName = schema, table
	return e
}

// WithColumn returns e naming the column it is about.
func (e *Error) WithColumn(name string) *Error {
	e.ColumnName = name
	return e
}

// WithConstraint returns e naming the constraint it is about.
func (e *Error) WithConstraint(name string) *Error {
	e.ConstraintName = name
	return e
}

// WithPosition returns e with the 1-based character position set.
func (e *Error) WithPosition(pos int) *Error {
	e.Position = pos
	return e
}

// As returns the *Error inside err, or, for any other error, an
// InternalError (XX000) carrying err's message. It returns nil for nil.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	return &Error{Code: InternalError, Message: err.Error(), cause: err}
}

// CodeOf returns the SQLSTATE of err (InternalError for errors not from
// this package, "" for nil).
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	return As(err).Code
}
