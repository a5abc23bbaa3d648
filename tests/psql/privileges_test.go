package psql

import (
	"bytes"
	"testing"

	"github.com/weirdb/weir/tests/testenv"
)

// as is a target reached as another user.
type as struct {
	testenv.Target
	user string
}

func (a as) User() string { return a.user }

// roleSetup makes the roles (once per cluster: roles are global in
// PostgreSQL).
const roleSetup = `
CREATE ROLE reader LOGIN;
CREATE ROLE ops WITH CREATEROLE CONNECTION LIMIT 3 VALID UNTIL '2030-01-02 03:04:05+00';
CREATE USER app PASSWORD 'x' CREATEDB;
ALTER ROLE app NOCREATEDB NOINHERIT;
CREATE ROLE gone;
DROP ROLE gone;
CREATE ROLE readers;
CREATE ROLE auditor LOGIN;
GRANT readers TO auditor, app;
`

// privSetup grants a read-only role some privileges.
const privSetup = `
CREATE TABLE stock (id int PRIMARY KEY, qty int);
CREATE TABLE ledger (id int PRIMARY KEY, amount numeric);
INSERT INTO stock VALUES (1, 5);
CREATE VIEW low AS SELECT id FROM stock WHERE qty < 10;
GRANT SELECT ON stock, low TO reader;
GRANT INSERT, UPDATE ON ledger TO reader;
REVOKE UPDATE ON ledger FROM reader;
GRANT SELECT ON ledger TO readers;
`

// privCases run as the owner (root) or the read-only role and must print
// what PostgreSQL prints.
var privCases = []struct {
	name, user, input string
}{
	{"dp", "root", `\dp`},
	{"du_roles", "root", `\du (reader|ops|app|gone|readers|auditor)`},
	{"member_reads", "auditor", "SELECT * FROM ledger;\nSELECT has_table_privilege('ledger', 'SELECT');"},
	{"noinherit_member_refused", "app", "SELECT * FROM ledger;\nSELECT has_table_privilege('ledger', 'SELECT');"},
	{"pg_roles", "root", "SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolconnlimit, rolpassword, rolvaliduntil FROM pg_roles WHERE rolname IN ('reader', 'ops', 'app') ORDER BY 1;"},
	{"role_errors", "root", "CREATE ROLE reader;\nDROP ROLE nosuch;\nDROP ROLE IF EXISTS nosuch;\nALTER ROLE nosuch LOGIN;\nCREATE ROLE pg_x;\nGRANT SELECT ON stock TO nosuch;\nGRANT SELECT ON nosuch TO reader;\nGRANT readers TO readers;\nGRANT auditor TO readers;\nGRANT readers TO auditor;\nREVOKE readers FROM reader;\nGRANT nosuch TO reader;"},
	{"drop_role_with_grant", "root", "CREATE ROLE holder;\nGRANT SELECT ON stock TO holder;\nDROP ROLE holder;\nREVOKE SELECT ON stock FROM holder;\nDROP ROLE holder;"},
	{"z_stock", "root", `\z stock`},
	{"has_table_privilege", "root", "SELECT has_table_privilege('reader', 'stock', 'SELECT'), has_table_privilege('reader', 'stock', 'INSERT'), has_table_privilege('reader', 'ledger', 'insert'), has_table_privilege('reader', 'ledger', 'UPDATE, DELETE'), has_table_privilege('root', 'ledger', 'DELETE');"},
	{"has_table_privilege_oid", "root", "SELECT has_table_privilege('reader', 'stock'::regclass, 'SELECT'), has_table_privilege('reader', 'ledger'::regclass, 'SELECT'), has_table_privilege('reader', 'low'::regclass::oid, 'select'), has_table_privilege('reader', 'ledger'::regclass, 'INSERT');"},
	{"grant_sequence_and_table_fails_whole", "root", "CREATE SEQUENCE gseq;\nCREATE INDEX gidx ON stock (qty);\nGRANT USAGE ON stock, gseq TO reader;\nGRANT USAGE ON gseq, stock TO reader;\nGRANT SELECT ON gseq, nosuch TO reader;\nGRANT SELECT ON gseq, gidx TO reader;\n\\dp gseq\nDROP INDEX gidx;\nDROP SEQUENCE gseq;"},
	{"pg_class_acl", "root", "SELECT relname, relacl FROM pg_class WHERE relname IN ('stock', 'ledger', 'low') ORDER BY 1;"},
	{"reader_reads", "reader", "SELECT * FROM stock;\nSELECT * FROM low;\nSELECT current_user, session_user;\nSHOW is_superuser;"},
	{"reader_refused", "reader", "SELECT * FROM ledger;\nINSERT INTO stock VALUES (2, 1);\nUPDATE stock SET qty = 0;\nDELETE FROM stock;\nTRUNCATE stock;\nCREATE TABLE mine (a int);\nDROP VIEW low;\nINSERT INTO ledger VALUES (1, 2.5);\nUPDATE ledger SET amount = 0;\nSELECT rolname FROM pg_authid;"},
	// The ACL as PostgreSQL keeps it once a GRANT or REVOKE has touched
	// it: the owner's item first, the others in the order granted, items
	// left without privileges dropped (the owner's too), and the owner's
	// item kept when every grant is revoked again or a REVOKE finds
	// nothing to take, for tables, views, materialized views and
	// sequences.
	{"dp_acl_order", "root", "CREATE TABLE acl_t (a int);\nCREATE VIEW acl_v AS SELECT a FROM acl_t;\nCREATE MATERIALIZED VIEW acl_m AS SELECT a FROM acl_t;\n" +
		"CREATE SEQUENCE acl_s;\nCREATE TABLE acl_ser (id serial, b int);\n" +
		"GRANT SELECT ON acl_t TO readers;\nGRANT INSERT ON acl_t TO reader;\nGRANT SELECT ON acl_t TO PUBLIC;\nGRANT UPDATE ON acl_t TO readers, root;\nREVOKE SELECT ON acl_t FROM readers;\n" +
		"GRANT SELECT ON acl_v TO auditor;\nREVOKE SELECT ON acl_v FROM auditor;\nREVOKE ALL ON acl_m FROM app;\n" +
		"REVOKE SELECT ON acl_s FROM root;\nGRANT USAGE ON SEQUENCE acl_s TO reader, auditor;\nREVOKE ALL ON SEQUENCE acl_ser_id_seq FROM root;\n" +
		"REVOKE TRUNCATE ON acl_ser FROM root;\nGRANT ALL ON acl_ser TO app;\nGRANT TRUNCATE ON acl_ser TO root;\n" +
		"\\dp acl_*\n\\z acl_t\nSELECT relname, relacl FROM pg_class WHERE relname LIKE 'acl%' ORDER BY 1;\n" +
		"DROP MATERIALIZED VIEW acl_m;\nDROP VIEW acl_v;\nDROP TABLE acl_t, acl_ser;\nDROP SEQUENCE acl_s;"},
	// GRANT ... ON ALL TABLES IN SCHEMA passes over indexes, and a
	// GRANT naming one fails (42809) without granting on the others.
	{"grant_indexes", "root", "CREATE SCHEMA acl_ix;\nCREATE TABLE acl_ix.t (a int PRIMARY KEY, b int);\nCREATE INDEX t_b ON acl_ix.t (b);\nCREATE TABLE acl_ix.u (a int);\n" +
		"GRANT SELECT ON ALL TABLES IN SCHEMA acl_ix TO reader;\nGRANT SELECT ON acl_ix.u, acl_ix.t_b TO readers;\nREVOKE SELECT ON acl_ix.u, acl_ix.t_b FROM reader;\n" +
		"SELECT c.relname, c.relkind, c.relacl FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'acl_ix' ORDER BY 1;\n" +
		"DROP TABLE acl_ix.t, acl_ix.u;\nDROP SCHEMA acl_ix;"},
	// An owner that revokes its own privileges no longer holds them,
	// until it grants them to itself again.
	{"owner_revokes_own", "root", "GRANT CREATE ON SCHEMA public TO auditor;\nSET ROLE auditor;\nCREATE TABLE own_t (a int);\nCREATE SEQUENCE own_s;\n" +
		"REVOKE SELECT, DELETE ON own_t FROM auditor;\nREVOKE USAGE, UPDATE ON SEQUENCE own_s FROM auditor;\n" +
		"INSERT INTO own_t VALUES (1);\nSELECT * FROM own_t;\nDELETE FROM own_t;\nSELECT nextval('own_s');\nSELECT currval('own_s');\n" +
		"SELECT has_table_privilege('own_t', 'SELECT'), has_table_privilege('own_t', 'INSERT'), has_sequence_privilege('own_s', 'USAGE');\n" +
		"\\dp own_*\nGRANT SELECT ON own_t TO auditor;\nSELECT * FROM own_t;\n\\dp own_t\n" +
		"DROP TABLE own_t;\nDROP SEQUENCE own_s;\nRESET ROLE;\nREVOKE CREATE ON SCHEMA public FROM auditor;"},
}

// TestPsqlPrivileges compares GRANT, REVOKE and the privilege checks of
// weir with PostgreSQL's, through psql, as the owner and as a role
// granted some privileges.
func TestPsqlPrivileges(t *testing.T) {
	dir := t.TempDir()
	pg := testenv.StartPostgres(t)
	pg.CreateUserDB(t, "root", "dev")
	ref := pg.As("root", "dev")
	var sut testenv.Target
	roleOnSUT := true
	if testenv.TargetName() == "postgres" {
		pg.CreateUserDB(t, "root", "sut")
		sut = pg.As("root", "sut")
		roleOnSUT = false // roles belong to the cluster
	} else {
		sut = testenv.Start(t, testenv.Options{})
	}
	if out := psql(t, ref, dir, roleSetup+privSetup); len(out) != 0 {
		t.Fatalf("setup on postgres printed:\n%s", out)
	}
	setup := privSetup
	if roleOnSUT {
		setup = roleSetup + setup
	}
	if out := psql(t, sut, dir, setup); len(out) != 0 {
		t.Fatalf("setup on %s printed:\n%s", sut.Kind(), out)
	}
	for _, c := range privCases {
		t.Run(c.name, func(t *testing.T) {
			got := psql(t, as{sut, c.user}, dir, c.input)
			want := psql(t, as{ref, c.user}, dir, c.input)
			if !bytes.Equal(got, want) {
				t.Errorf("psql as %s %q: output differs from PostgreSQL's\n--- postgres\n%s\n--- %s\n%s", c.user, c.input, want, sut.Kind(), got)
			}
		})
	}
}
