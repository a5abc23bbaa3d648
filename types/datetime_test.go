package types

import (
	"testing"
	"time"
)

// TestLocalToUTC checks wall times around offset transitions against the
// instants PostgreSQL 15 gives for them: a time in a spring-forward gap
// is read with the offset before the gap, a time in a fall-back overlap
// with the offset after it.
func TestLocalToUTC(t *testing.T) {
	wall := func(s string) int64 {
		tm, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixMicro()
	}
	utc := func(s string) int64 {
		tm, err := time.Parse("2006-01-02 15:04Z07:00", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixMicro()
	}
	for _, c := range []struct{ zone, wall, want string }{
		{"America/New_York", "2024-03-10 01:59", "2024-03-10 01:59-05:00"},
		{"America/New_York", "2024-03-10 02:00", "2024-03-10 03:00-04:00"},
		{"America/New_York", "2024-03-10 02:30", "2024-03-10 03:30-04:00"},
		{"America/New_York", "2024-03-10 03:00", "2024-03-10 03:00-04:00"},
		{"America/New_York", "2024-11-03 00:59", "2024-11-03 00:59-04:00"},
		{"America/New_York", "2024-11-03 01:00", "2024-11-03 01:00-05:00"},
		{"America/New_York", "2024-11-03 01:30", "2024-11-03 01:30-05:00"},
		{"America/New_York", "2024-11-03 02:00", "2024-11-03 02:00-05:00"},
		{"America/New_York", "2024-07-01 12:00", "2024-07-01 12:00-04:00"},
		{"America/Sao_Paulo", "2018-11-04 00:00", "2018-11-04 01:00-02:00"},
		{"Europe/London", "2024-03-31 01:30", "2024-03-31 02:30+01:00"},
		{"Europe/London", "2024-10-27 01:30", "2024-10-27 01:30+00:00"},
		{"Australia/Lord_Howe", "2024-10-06 02:15", "2024-10-06 02:45+11:00"},
		{"Australia/Lord_Howe", "2024-04-07 01:45", "2024-04-07 01:45+10:30"},
		{"Asia/Kolkata", "2024-01-01 00:00", "2024-01-01 00:00+05:30"},
		{"UTC", "2024-03-10 02:30", "2024-03-10 02:30Z"},
	} {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := LocalToUTC(wall(c.wall), loc), utc(c.want); got != want {
			t.Errorf("%s %s: got %s, want %s", c.zone, c.wall, FormatTimestamptz(got, loc), FormatTimestamptz(want, loc))
		}
	}
	if got := LocalToUTC(12345, time.FixedZone("", 3600)); got != 12345-3600*USecsPerSec {
		t.Errorf("fixed zone: got %d", got)
	}
}

// TestDatetimeRange checks the ends of the date and timestamp ranges,
// which are PostgreSQL's except that timestamps stop at the largest int64
// microsecond count before infinity.
func TestDatetimeRange(t *testing.T) {
	if d := DateFromYMD(5874897, 12, 31); !DateInRange(d) || DateInRange(d+1) {
		t.Errorf("5874897-12-31 must be the last date")
	}
	if d := DateFromYMD(-4713, 11, 24); !DateInRange(d) || DateInRange(d-1) {
		t.Errorf("4714-11-24 BC must be the first date")
	}
	first := DateFromYMD(-4713, 11, 24) * USecsPerDay
	if !TimestampInRange(first) || TimestampInRange(first-1) {
		t.Errorf("4714-11-24 00:00 BC must be the first timestamp")
	}
	if TimestampInRange(PosInfinity) || !TimestampInRange(PosInfinity-1) {
		t.Errorf("the last timestamp must be just before infinity")
	}
}

// TestParseTimestampLastDay: the last, partial day of the timestamp range
// is accepted up to the largest timestamp, which reads back from its own
// text, and nothing after it.
func TestParseTimestampLastDay(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"294247-01-10 00:00:00", true},
		{"294247-01-10 04:00:54.775806", true},
		{"294247-01-10 04:00:54.775807", false},
		{"294247-01-10 23:59:59", false},
		{"294247-01-11 00:00:00", false},
	} {
		for _, tz := range []bool{false, true} {
			in := c.in
			if tz {
				in += "+00"
			}
			us, err := ParseTimestamp(in, tz, time.UTC)
			if (err == nil) != c.ok {
				t.Fatalf("%s: got %d, %v; want ok %v", in, us, err, c.ok)
			}
			if err == nil && !TimestampInRange(us) {
				t.Fatalf("%s: %d is out of range", in, us)
			}
		}
	}
	if us, err := ParseTimestamp("294247-01-10 04:00:54.775806", false, time.UTC); err != nil || us != maxTimestampUSec {
		t.Fatalf("the largest timestamp: %d, %v", us, err)
	}
}
