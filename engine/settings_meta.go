package engine

import (
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/engine/syscat"
)

// settingMeta is what pg_settings shows of a setting besides its value,
// as PostgreSQL 15 describes the same GUC (guc.c): its category, context,
// type, unit, bounds, allowed values and boot value.
type settingMeta struct {
	category string
	// context is PostgreSQL's; "" means user for a setting a session
	// may change and internal for a read-only one.
	context string
	vartype string // bool, enum, integer, string
	// unit is kB or ms for the integer settings PostgreSQL keeps in
	// those units: pg_settings shows their values as numbers of it.
	unit     string
	min, max string
	enum     []string
	// boot is PostgreSQL's boot_val when it differs from weir's
	// default (which the setting starts from); hasBoot says it is set.
	boot    string
	hasBoot bool
	// override: PostgreSQL sets the value at every transaction start
	// (source override).
	override bool
}

const (
	catLocale    = "Client Connection Defaults / Locale and Formatting"
	catStatement = "Client Connection Defaults / Statement Behavior"
	catPreset    = "Preset Options"
	maxInt32     = "2147483647"
)

var isolationLevels = []string{"serializable", "repeatable read", "read committed", "read uncommitted"}

// settingMetas holds the metadata of every setting, by canonical name.
var settingMetas = map[string]settingMeta{
	"application_name":                    {category: "Reporting and Logging / What to Log", vartype: "string"},
	"bytea_output":                        {category: catStatement, vartype: "enum", enum: []string{"escape", "hex"}},
	"client_encoding":                     {category: catLocale, vartype: "string", boot: "SQL_ASCII", hasBoot: true},
	"check_function_bodies":               {category: catStatement, vartype: "bool"},
	"default_table_access_method":         {category: catStatement, vartype: "string"},
	"default_tablespace":                  {category: catStatement, vartype: "string"},
	"xmloption":                           {category: catStatement, vartype: "enum", enum: []string{"content", "document"}},
	"client_min_messages":                 {category: catStatement, vartype: "enum", enum: []string{"debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error"}},
	"DateStyle":                           {category: catLocale, vartype: "string"},
	"default_transaction_isolation":       {category: catStatement, vartype: "enum", enum: isolationLevels},
	"extra_float_digits":                  {category: catLocale, vartype: "integer", min: "-15", max: "3"},
	"idle_in_transaction_session_timeout": {category: catStatement, vartype: "integer", unit: "ms", min: "0", max: maxInt32},
	"idle_session_timeout":                {category: catStatement, vartype: "integer", unit: "ms", min: "0", max: maxInt32},
	"integer_datetimes":                   {category: catPreset, vartype: "bool"},
	"IntervalStyle":                       {category: catLocale, vartype: "enum", enum: []string{"postgres", "postgres_verbose", "sql_standard", "iso_8601"}},
	"is_superuser":                        {category: "Developer Options", vartype: "bool"},
	"lc_collate":                          {category: catPreset, vartype: "string"},
	"lc_ctype":                            {category: catPreset, vartype: "string", boot: "C", hasBoot: true},
	"lc_messages":                         {category: catLocale, context: "superuser", vartype: "string", hasBoot: true},
	"lock_timeout":                        {category: catStatement, vartype: "integer", unit: "ms", min: "0", max: maxInt32},
	"max_connections":                     {category: "Connections and Authentication / Connection Settings", context: "postmaster", vartype: "integer", min: "1", max: "262143"},
	"superuser_reserved_connections":      {category: "Connections and Authentication / Connection Settings", context: "postmaster", vartype: "integer", min: "0", max: "262143"},
	"max_identifier_length":               {category: catPreset, vartype: "integer", min: "63", max: "63"},
	"row_security":                        {category: catStatement, vartype: "bool"},
	"search_path":                         {category: catStatement, vartype: "string"},
	"server_encoding":                     {category: catPreset, vartype: "string", boot: "SQL_ASCII", hasBoot: true},
	"server_version":                      {category: catPreset, vartype: "string"},
	"server_version_num":                  {category: catPreset, vartype: "integer", min: "150000", max: "150000"},
	"standard_conforming_strings":         {category: "Version and Platform Compatibility / Previous PostgreSQL Versions", vartype: "bool"},
	"statement_timeout":                   {category: catStatement, vartype: "integer", unit: "ms", min: "0", max: maxInt32},
	"streaming_parallelism":               {category: "Customized Options", vartype: "integer", min: "0", max: strconv.Itoa(MaxStreamingParallelism)},
	"TimeZone":                            {category: catLocale, vartype: "string", boot: "GMT", hasBoot: true},
	"transaction_isolation":               {category: catStatement, vartype: "enum", enum: isolationLevels, override: true},
	"transaction_read_only":               {category: catStatement, vartype: "bool", override: true},
	"work_mem":                            {category: "Resource Usage / Memory", vartype: "integer", unit: "kB", min: "64", max: maxInt32},
}

// hiddenSettings are those pg_settings does not list, as PostgreSQL
// hides them (GUC_NO_SHOW_ALL); SHOW still shows them.
var hiddenSettings = map[string]bool{"is_superuser": true}

// inUnit returns a value as pg_settings shows it: a memory or time
// setting as a number of its unit (4MB is 4096 for kB), others as SHOW
// prints them.
func (m settingMeta) inUnit(v string) string {
	switch m.unit {
	case "kB":
		if b, err := parseMemorySetting(v); err == nil {
			return strconv.FormatInt(b>>10, 10)
		}
	case "ms":
		if d, err := parseDurationSetting(v); err == nil {
			return strconv.FormatInt(int64(d/time.Millisecond), 10)
		}
	}
	return v
}

// pgSetting returns the pg_settings row of st for session s.
func (s *Session) pgSetting(st *setting) syscat.Setting {
	m := settingMetas[st.name]
	out := syscat.Setting{Name: st.name, Desc: st.desc, ReadOnly: st.readOnly,
		Category: m.category, Context: m.context, VarType: m.vartype, Unit: m.unit,
		Min: m.min, Max: m.max, EnumVals: m.enum, Source: "default"}
	if out.Context == "" {
		out.Context = "user"
		if st.readOnly {
			out.Context = "internal"
		}
	}
	reset := st.def
	if v, ok := s.eng.confDefault(strings.ToLower(st.name)); ok {
		// A value of ALTER SYSTEM, which RESET returns to.
		reset, out.Source = v, "configuration file"
	}
	if v, ok := s.startup[st.name]; ok {
		reset = v
	}
	if _, ok := s.vars[strings.ToLower(st.name)]; ok {
		out.Source = "session"
		if sv, ok := s.startup[st.name]; ok && sv == s.get(st) {
			out.Source = "client"
		}
	}
	if m.override {
		out.Source = "override"
	}
	if st.name == "server_version_num" {
		out.Min, out.Max = st.def, st.def
	}
	boot := st.def
	if m.hasBoot {
		boot = m.boot
	}
	out.Value, out.Default, out.Reset = m.inUnit(s.get(st)), m.inUnit(boot), m.inUnit(reset)
	return out
}
