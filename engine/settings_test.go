package engine

import (
	"testing"
	"time"
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
