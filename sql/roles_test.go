package sql

import (
	"fmt"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
)

func TestParseRoles(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"CREATE ROLE reader", `&{Name:reader User:false Opts:{Superuser:<nil> Login:<nil> CreateRole:<nil> CreateDB:<nil> Inherit:<nil> Password:<nil> PasswordNull:false ValidUntil:<nil> ConnLimit:<nil>}}`},
		{"create user alice with password 'x' superuser", "user alice login=? super=true pw=x"},
		{"ALTER USER alice WITH NOSUPERUSER VALID UNTIL '2030-01-01' CONNECTION LIMIT 3", "alter alice super=false until=2030-01-01 limit=3"},
		{"ALTER ROLE alice PASSWORD NULL", "alter alice pwnull"},
		{"ALTER ROLE alice RENAME TO bob", "rename alice bob"},
		{"DROP ROLE IF EXISTS a, b", "drop [a b] true"},
		{"DROP USER a", "drop [a] false"},
		{"GRANT SELECT, INSERT ON TABLE public.t, u TO reader, PUBLIC", "grant false [select insert] table [public.t u] [reader public]"},
		{"REVOKE ALL PRIVILEGES ON t FROM reader", "grant true [all] table [t] [reader]"},
		{"GRANT CREATE ON SCHEMA public TO writer", "grant false [create] schema [public] [writer]"},
		{"GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader", "grant false [select] all tables in schema [public] [reader]"},
		{"GRANT readers, writers TO alice, bob", "grant false [] role [readers writers] [alice bob]"},
		{"REVOKE readers FROM alice", "grant true [] role [readers] [alice]"},
	} {
		st, err := Parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		got := ""
		switch s := st.(type) {
		case *CreateRole:
			if s.User {
				got = fmt.Sprintf("user %s login=? super=%v pw=%s", s.Name, *s.Opts.Superuser, *s.Opts.Password)
			} else {
				got = fmt.Sprintf("%+v", s)
			}
		case *AlterRole:
			switch {
			case s.RenameTo != "":
				got = "rename " + s.Name + " " + s.RenameTo
			case s.Opts.PasswordNull:
				got = "alter " + s.Name + " pwnull"
			default:
				got = fmt.Sprintf("alter %s super=%v until=%s limit=%d", s.Name, *s.Opts.Superuser, *s.Opts.ValidUntil, *s.Opts.ConnLimit)
			}
		case *DropRole:
			got = fmt.Sprintf("drop %v %v", s.Names, s.IfExists)
		case *Grant:
			got = fmt.Sprintf("grant %v %v %s %v %v", s.Revoke, s.Privileges, s.On, s.Objects, s.Grantees)
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"CREATE ROLE", "CREATE ROLE a PASSWORD 5", "GRANT SELECT ON t", "GRANT FLY ON t TO a", "ALTER ROLE a WITH BOGUS"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s: parsed", bad)
		}
	}
	// Column privileges are PostgreSQL's but not weir's: 0A000, not a
	// syntax error.
	for _, in := range []string{"GRANT SELECT (a), UPDATE (b) ON t TO r", "REVOKE INSERT (a, b) ON t FROM r"} {
		if _, err := Parse(in); pgerr.CodeOf(err) != pgerr.FeatureNotSupported {
			t.Errorf("%s: %v (%s), want 0A000", in, err, pgerr.CodeOf(err))
		}
	}
}
