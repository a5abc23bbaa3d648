package catalog

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

func describeRoles(c *Catalog) string {
	s := ""
	for _, r := range c.Roles() {
		s += fmt.Sprintf("%d %s super=%v login=%v pw=%q until=%v\n", r.OID, r.Name, r.Superuser, r.Login, r.Password, r.ValidUntil)
	}
	for _, r := range c.All() {
		s += fmt.Sprintf("%s owner=%d acl=%s\n", r.Name, r.Owner, aclString(r.ACL))
	}
	s += fmt.Sprintf("public acl=%v\n", c.SchemaACL("public"))
	return s
}

// aclString renders a RelACL for comparison: NULL or {grantee=letters,...}.
func aclString(a RelACL) string {
	if a == nil {
		return "NULL"
	}
	var items []string
	for _, it := range a {
		g := ""
		if it.Grantee != PublicGrantee {
			g = fmt.Sprint(it.Grantee)
		}
		items = append(items, g+"="+it.Privs.Letters())
	}
	return "{" + strings.Join(items, ",") + "}"
}

// Roles, ownership and grants are stored in the catalog and survive a
// reopen; the bootstrap superuser is made once.
func TestRolesPersist(t *testing.T) {
	fs := vfs.NewMem()
	db, c := open(t, fs)
	if made, err := c.Bootstrap("root", "SCRAM-SHA-256$4096:a$b:c"); err != nil || !made {
		t.Fatalf("Bootstrap: %v %v", made, err)
	}
	if made, _ := c.Bootstrap("other", ""); made {
		t.Fatal("second Bootstrap made a role")
	}
	alice := &Role{Name: "alice", Login: true, ConnLimit: -1, ValidUntil: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	if err := c.CreateRole(alice); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.CreateRole(&Role{Name: "alice"}), "42710", `role "alice" already exists`)
	rel := table("t")
	rel.Owner = alice.OID
	rel.ACL = RelACL{{Grantee: alice.OID, Privs: PrivTableAll}, {Grantee: PublicGrantee, Privs: PrivSelect}}
	if err := c.Create(rel); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(table("u")); err != nil {
		t.Fatal(err)
	}
	reader := &Role{Name: "reader", Login: true}
	if err := c.CreateRole(reader); err != nil {
		t.Fatal(err)
	}
	if err := c.SetSchemaACL("public", ACL{reader.OID: PrivCreate | PrivUsage}); err != nil {
		t.Fatal(err)
	}
	before := describeRoles(c)
	db.Close()
	db, c = open(t, fs)
	defer db.Close()
	if after := describeRoles(c); after != before {
		t.Fatalf("after reopen:\n%s\nbefore:\n%s", after, before)
	}
	// Neither an owner nor a grantee can be dropped; once its privileges
	// are revoked, the grantee can.
	wantCode(t, c.DropRole(alice.OID), pgerr.DependentObjectsStillExist, `role "alice" cannot be dropped because some objects depend on it`)
	wantCode(t, c.DropRole(reader.OID), pgerr.DependentObjectsStillExist, `role "reader" cannot be dropped because some objects depend on it`)
	if err := c.SetSchemaACL("public", ACL{}); err != nil {
		t.Fatal(err)
	}
	if err := c.DropRole(reader.OID); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.RoleByName("reader"); ok || len(c.SchemaACL("public")) != 0 {
		t.Fatalf("reader still there: %s", describeRoles(c))
	}
	want := fmt.Sprintf(`%d alice super=false login=true pw="" until=2030-01-02 03:04:05 +0000 UTC
10 root super=true login=true pw="SCRAM-SHA-256$4096:a$b:c" until=0001-01-01 00:00:00 +0000 UTC
t owner=%d acl={%d=arwdDxt,=r}
u owner=10 acl=NULL
public acl=map[]
`, alice.OID, alice.OID, alice.OID)
	if got := describeRoles(c); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
