package catalog

import (
	"strconv"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/storage"
)

// RelACL.Update follows PostgreSQL's aclupdate on an ACL that starts as
// acldefault: the owner's item first, new grantees appended in the order
// granted, an item left with no privilege dropped (the owner's too), and
// the ACL explicit ('{}') once set, even when empty.
func TestRelACLUpdate(t *testing.T) {
	const owner, r1, r2 = 100, 101, 102
	var a RelACL
	if a.Explicit() || a.Privileges(owner, PrivTableAll, []uint32{owner}) != PrivTableAll {
		t.Fatalf("a NULL ACL gives the owner every privilege")
	}
	steps := []struct {
		grantees []uint32
		p        Privilege
		revoke   bool
		want     string
	}{
		{[]uint32{r2}, PrivSelect, false, "{100=arwdDxt,102=r}"},
		{[]uint32{r1}, PrivInsert, false, "{100=arwdDxt,102=r,101=a}"},
		{[]uint32{PublicGrantee}, PrivSelect, false, "{100=arwdDxt,102=r,101=a,=r}"},
		{[]uint32{r2}, PrivUpdate, false, "{100=arwdDxt,102=rw,101=a,=r}"},
		{[]uint32{owner}, PrivSelect, false, "{100=arwdDxt,102=rw,101=a,=r}"},
		{[]uint32{r1, PublicGrantee}, PrivTableAll, true, "{100=arwdDxt,102=rw}"},
		{[]uint32{owner}, PrivSelect, true, "{100=awdDxt,102=rw}"},
		{[]uint32{owner}, PrivSelect, false, "{100=arwdDxt,102=rw}"},
		{[]uint32{owner, r2}, PrivTableAll, true, "{}"},
		{[]uint32{r1}, PrivSelect, false, "{101=r}"},
	}
	for _, s := range steps {
		before := aclString(a)
		b := a.Update(owner, PrivTableAll, s.grantees, s.p, s.revoke)
		if aclString(a) != before {
			t.Fatalf("Update changed its receiver: %s, was %s", aclString(a), before)
		}
		if got := aclString(b); got != s.want {
			t.Fatalf("%v %s (revoke %v) on %s = %s, want %s", s.grantees, s.p.Letters(), s.revoke, before, got, s.want)
		}
		a = b
	}
	if a.Privileges(owner, PrivTableAll, []uint32{owner}) != 0 || a.Privileges(owner, PrivTableAll, []uint32{r1}) != PrivSelect {
		t.Fatalf("privileges of %s", aclString(a))
	}
	// A REVOKE on a NULL ACL makes it explicit with the owner's item.
	if got := aclString(RelACL(nil).Update(owner, PrivSequenceAll, []uint32{r1}, PrivUsage, true)); got != "{100=rwU}" {
		t.Fatalf("REVOKE on NULL = %s", got)
	}
}

// An ACL is stored with its order and whether it is explicit (NULL, '{}'
// and items all survive a reopen), and one stored as the map of older
// catalogs is read as the owner's item and the grants in OID order.
func TestRelACLPersist(t *testing.T) {
	fs := vfs.NewMem()
	db, c := open(t, fs)
	mk := func(name string, acl RelACL, seq RelACL) {
		rel := table(name)
		rel.Owner = BootstrapRoleOID
		rel.ACL = acl
		rel.Cols[0].Seq, rel.Cols[0].SeqACL = name+"_a_seq", seq
		if err := c.Create(rel); err != nil {
			t.Fatal(err)
		}
	}
	mk("null", nil, nil)
	mk("empty", RelACL{}, RelACL{})
	mk("items", RelACL{{Grantee: 7, Privs: PrivSelect}, {Grantee: PublicGrantee, Privs: PrivInsert}, {Grantee: 5, Privs: PrivTableAll}},
		RelACL{{Grantee: 9, Privs: PrivUsage}})
	describe := func(c *Catalog) string {
		s := ""
		for _, name := range []string{"null", "empty", "items"} {
			r, ok := c.Lookup(PublicSchema, name)
			if !ok {
				t.Fatalf("%s is gone", name)
			}
			s += name + " " + aclString(r.ACL) + " " + aclString(r.Cols[0].SeqACL) + "\n"
		}
		return s
	}
	const want = "null NULL NULL\nempty {} {}\nitems {7=r,=a,5=arwdDxt} {9=U}\n"
	if got := describe(c); got != want {
		t.Fatalf("before reopen:\n%s\nwant\n%s", got, want)
	}
	db.Close()
	db, c = open(t, fs)
	if got := describe(c); got != want {
		t.Fatalf("after reopen:\n%s\nwant\n%s", got, want)
	}

	// A catalog entry as written before RelACL.
	old := []byte(`{"v":1,"id":90,"schema":"public","name":"old","kind":"table","owner":10,"acl":{"0":1,"12":4,"10":4,"11":1},` +
		`"cols":[{"name":"id","type_oid":23,"typmod":-1,"seq":"old_id_seq","seq_acl":{"10":` + strconv.Itoa(int(PrivSequenceAll)) + `,"11":32}}]}`)
	b := db.NewBatch()
	if err := b.Set(storage.CatalogKey(relationKey(90)), old); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, c = open(t, fs)
	defer db.Close()
	r, ok := c.Lookup(PublicSchema, "old")
	if !ok {
		t.Fatal("old entry not read")
	}
	if got := aclString(r.ACL) + " " + aclString(r.Cols[0].SeqACL); got != "{10=arwdDxt,=r,11=r,12=w} {10=rwU,11=U}" {
		t.Fatalf("old entry's ACLs = %s", got)
	}
}
