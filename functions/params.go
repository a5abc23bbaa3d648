package functions

import "github.com/weirdb/weir/types"

// Params is the parameter list PostgreSQL 15 declares for a built-in
// function with named parameters (pg_proc.proargnames), with the values
// of its defaulted trailing parameters (proargdefaults). The binder
// matches named arguments (name => value) against Names and fills in
// the defaults of parameters a call leaves out.
type Params struct {
	Names []string
	// Defaults are the values of the last len(Defaults) parameters, of
	// the types of the overload with len(Names) arguments.
	Defaults []types.Datum
}

// NamedParams returns the parameter lists of name's overloads that have
// parameter names, or nil. They are the functions weir has of those
// pg_proc lists with proargnames in pg_catalog; the variadic
// json[b]_extract_path[_text] are left out, as a named argument stands
// for a variadic parameter only with VARIADIC, which the binder matches
// by itself (planner's variadicParams).
func NamedParams(name string) []Params { return namedParams[name] }

func zeros(n int) []types.Datum { return make([]types.Datum, n) }

var namedParams = map[string][]Params{
	"make_interval": {{Names: []string{"years", "months", "weeks", "days", "hours", "mins", "secs"},
		Defaults: append(zeros(6), types.DFloat(0))}},
	"make_date":      {{Names: []string{"year", "month", "day"}}},
	"make_time":      {{Names: []string{"hour", "min", "sec"}}},
	"make_timestamp": {{Names: []string{"year", "month", "mday", "hour", "min", "sec"}}},
	"make_timestamptz": {
		{Names: []string{"year", "month", "mday", "hour", "min", "sec"}},
		{Names: []string{"year", "month", "mday", "hour", "min", "sec", "timezone"}},
	},
	"jsonb_path_exists":         jsonPathParams,
	"jsonb_path_match":          jsonPathParams,
	"jsonb_path_query":          jsonPathParams,
	"jsonb_path_query_array":    jsonPathParams,
	"jsonb_path_query_first":    jsonPathParams,
	"jsonb_path_exists_tz":      jsonPathParams,
	"jsonb_path_match_tz":       jsonPathParams,
	"jsonb_path_query_tz":       jsonPathParams,
	"jsonb_path_query_array_tz": jsonPathParams,
	"jsonb_path_query_first_tz": jsonPathParams,
	"jsonb_insert": {{Names: []string{"jsonb_in", "path", "replacement", "insert_after"},
		Defaults: []types.Datum{types.DBool(false)}}},
	"jsonb_set": {{Names: []string{"jsonb_in", "path", "replacement", "create_if_missing"},
		Defaults: []types.Datum{types.DBool(true)}}},
	"jsonb_set_lax": {{Names: []string{"jsonb_in", "path", "replacement", "create_if_missing", "null_value_treatment"},
		Defaults: []types.Datum{types.DBool(true), types.DString("use_json_null")}}},
	"pg_terminate_backend": {{Names: []string{"pid", "timeout"}, Defaults: []types.Datum{types.DInt(0)}}},
	// The set-returning functions over json and jsonb.
	"json_each":                 {{Names: []string{"from_json"}}},
	"json_each_text":            {{Names: []string{"from_json"}}},
	"jsonb_each":                {{Names: []string{"from_json"}}},
	"jsonb_each_text":           {{Names: []string{"from_json"}}},
	"json_array_elements":       {{Names: []string{"from_json"}}},
	"json_array_elements_text":  {{Names: []string{"from_json"}}},
	"jsonb_array_elements":      {{Names: []string{"from_json"}}},
	"jsonb_array_elements_text": {{Names: []string{"from_json"}}},
}

// jsonPathParams are the parameters of the jsonb_path_* functions:
// (target jsonb, path jsonpath, vars jsonb DEFAULT '{}', silent boolean
// DEFAULT false).
var jsonPathParams = []Params{{Names: []string{"target", "path", "vars", "silent"},
	Defaults: []types.Datum{types.DString("{}"), types.DBool(false)}}}
