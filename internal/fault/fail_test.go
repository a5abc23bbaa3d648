package fault

import (
	"errors"
	"testing"
)

func TestFail(t *testing.T) {
	defer func(f *failSpec) { failing = f }(failing)
	for _, tc := range []struct {
		spec string
		want string // per hit: x fails, . passes
	}{
		{"stream.operator_error@v", "x....."},
		{"stream.operator_error@v:3", "..x..."},
		{"stream.operator_error@v:2-4", ".xxx.."},
		{"stream.operator_error@v:5-", "....xx"},
	} {
		f, err := parseFailure(tc.spec)
		if err != nil || f == nil {
			t.Fatalf("%s: %v %v", tc.spec, f, err)
		}
		failing = f
		got := ""
		for range len(tc.want) {
			if Fail(OperatorError, "other") != nil {
				t.Fatalf("%s: another scope failed", tc.spec)
			}
			err := Fail(OperatorError, "v")
			switch {
			case err == nil:
				got += "."
			case errors.Is(err, ErrInjected):
				got += "x"
			default:
				t.Fatalf("%s: %v", tc.spec, err)
			}
		}
		if got != tc.want {
			t.Errorf("%s: hits %s, want %s", tc.spec, got, tc.want)
		}
	}
	for _, bad := range []string{"stream.operator_error", "stream.operator_error@v:0", "stream.operator_error@v:3-2", "stream.operator_error@v:x"} {
		if _, err := parseFailure(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if f, err := parseFailure("stream.barrier_error@v:2"); err != nil || f == nil || f.point != BarrierError+"@v" || f.first != 2 {
		t.Errorf("the barrier's error point: %+v %v", f, err)
	}
	if f, err := parseFailure("sink.after_precommit:2"); f != nil || err != nil {
		t.Errorf("a crash point read as an error point: %v %v", f, err)
	}
}
