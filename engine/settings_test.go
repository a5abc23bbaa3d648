package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

func TestDurationSettings(t *testing.T) {
	for in, want := range map[string]time.Duration{"0": 0, "250": 250 * time.Millisecond, "5s": 5 * time.Second, "2min": 2 * time.Minute, "'1h'": time.Hour} {
		got, err := parseDurationSetting(in)
		if err != nil || got != want {
			t.Errorf("parseDurationSetting(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "5 parsecs", "-1"} {
		if _, err := parseDurationSetting(bad); err == nil {
			t.Errorf("parseDurationSetting(%q) succeeded", bad)
		}
	}
	if got := formatDurationSetting(90 * time.Second); got != "90s" {
		t.Errorf("formatDurationSetting(90s) = %q", got)
	}
}

func TestTimeZoneSetting(t *testing.T) {
	loc, name, err := loadLocation("America/New_York")
	if err != nil || name != "America/New_York" {
		t.Fatalf("loadLocation: %v %q", err, name)
	}
	if _, off := time.Date(2024, 1, 1, 12, 0, 0, 0, loc).Zone(); off != -5*3600 {
		t.Errorf("offset = %d", off)
	}
	if _, _, err := loadLocation("Mars/Olympus"); err == nil {
		t.Error("unknown zone accepted")
	}
	if loc, _, err := loadLocation("utc"); err != nil || loc != time.UTC {
		t.Errorf("utc: %v %v", loc, err)
	}
}

func TestSettingChecks(t *testing.T) {
	s := &Session{vars: map[string]string{}, loc: time.UTC}
	st, err := lookupSetting("timezone")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.set(st, "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	if s.loc.String() != "Europe/Paris" || s.get(st) != "Europe/Paris" {
		t.Errorf("TimeZone not applied: %v %q", s.loc, s.get(st))
	}
	ro, _ := lookupSetting("server_version")
	if err := s.set(ro, "16"); err == nil {
		t.Error("read-only setting changed")
	}
	if _, err := lookupSetting("no_such_setting"); err == nil {
		t.Error("unknown setting found")
	}
	ds, _ := lookupSetting("DateStyle")
	if err := s.set(ds, "German"); err == nil {
		t.Error("unsupported DateStyle accepted")
	}
}

func TestCheckUTF8(t *testing.T) {
	if err := checkUTF8("select 'héllo'"); err != nil {
		t.Errorf("valid UTF-8 refused: %v", err)
	}
	for in, want := range map[string]string{
		"select 'ok\xff\xfeend'": `invalid byte sequence for encoding "UTF8": 0xff`,
		"select '\x00'":          `invalid byte sequence for encoding "UTF8": 0x00`,
		"select '\xe2\x82'":      `invalid byte sequence for encoding "UTF8": 0xe2 0x82 0x27`,
	} {
		err := checkUTF8(in)
		if err == nil || err.Error() != want {
			t.Errorf("checkUTF8(%q) = %v, want %s", in, err, want)
		}
	}
}

// TestMemorySetting checks work_mem's values as PostgreSQL 15 shows
// them after SET (SHOW work_mem) and its errors' messages and hints.
func TestMemorySetting(t *testing.T) {
	for in, want := range map[string]string{
		"1024": "1MB", "'64kB'": "64kB", "1GB": "1GB", "1536kB": "1536kB", "2048kB": "2MB",
		"10 MB": "10MB", "1.5MB": "1536kB", "65536B": "64kB", "65537B": "64kB", "66000B": "64kB",
		"1TB": "1TB", "2147483647": "2147483647kB", "1e3": "1000kB", "0.1GB": "102MB", " 128kB ": "128kB",
		"0x100": "256kB", "0100": "64kB",
	} {
		got, err := checkMemory(in)
		if err != nil || got != want {
			t.Errorf("checkMemory(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"63":         `63 kB is outside the valid range for parameter "work_mem" (64 .. 2147483647)`,
		"65000B":     `63 kB is outside the valid range for parameter "work_mem" (64 .. 2147483647)`,
		"-1":         `-1 kB is outside the valid range for parameter "work_mem" (64 .. 2147483647)`,
		"abc":        `invalid value for parameter "work_mem": "abc" (no hint)`,
		"":           `invalid value for parameter "work_mem": "" (no hint)`,
		"100 tb":     `invalid value for parameter "work_mem": "100 tb" (Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".)`,
		"10 mb":      `invalid value for parameter "work_mem": "10 mb" (Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".)`,
		"3000000000": `invalid value for parameter "work_mem": "3000000000" (Value exceeds integer range.)`,
		"2TB":        `invalid value for parameter "work_mem": "2TB" (Value exceeds integer range.)`,
	} {
		_, err := checkMemory(in)
		if err == nil {
			t.Errorf("checkMemory(%q) succeeded", in)
			continue
		}
		pe := pgerr.As(err)
		got := pe.Message
		if pe.Code != pgerr.InvalidParameterValue {
			t.Errorf("checkMemory(%q): SQLSTATE %s", in, pe.Code)
		}
		if strings.HasPrefix(want, "invalid") {
			hint := "no hint"
			if pe.Hint != "" {
				hint = pe.Hint
			}
			got += " (" + hint + ")"
		}
		if got != want {
			t.Errorf("checkMemory(%q): %s; want %s", in, got, want)
		}
	}
}

// TestPgSettingsRow checks pg_settings' view of a setting: the value in
// its unit, the reset value the client gave and the source.
func TestPgSettingsRow(t *testing.T) {
	s := &Session{vars: map[string]string{}, loc: time.UTC}
	row := func(name string) string {
		st, err := lookupSetting(name)
		if err != nil {
			t.Fatal(err)
		}
		r := s.pgSetting(st)
		return strings.Join([]string{r.Value, r.Unit, r.VarType, r.Min, r.Max, r.Default, r.Reset, r.Context, r.Source}, "|")
	}
	for _, c := range []struct{ name, want string }{
		{"work_mem", "4096|kB|integer|64|2147483647|4096|4096|user|default"},
		{"statement_timeout", "0|ms|integer|0|2147483647|0|0|user|default"},
		{"transaction_read_only", "off||bool|||off|off|user|override"},
		{"server_encoding", "UTF8||string|||SQL_ASCII|UTF8|internal|default"},
		{"max_identifier_length", "63||integer|63|63|63|63|internal|default"},
	} {
		if got := row(c.name); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	for name, v := range map[string]string{"work_mem": "64MB", "statement_timeout": "2s", "application_name": "psql"} {
		st, _ := lookupSetting(name)
		if err := s.set(st, v); err != nil {
			t.Fatal(err)
		}
	}
	s.startup = map[string]string{"application_name": "psql"}
	for _, c := range []struct{ name, want string }{
		{"work_mem", "65536|kB|integer|64|2147483647|4096|4096|user|session"},
		{"statement_timeout", "2000|ms|integer|0|2147483647|0|0|user|session"},
		{"application_name", "psql||string||||psql|user|client"},
	} {
		if got := row(c.name); got != c.want {
			t.Errorf("%s after SET: %s, want %s", c.name, got, c.want)
		}
	}
}
