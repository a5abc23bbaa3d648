package cluster

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/*.trace")

// A trace file is a sequence of blocks: one or more command lines, a line
// "----", the output those commands produced, and a blank line. Lines
// starting with # before a block are comments. Each file names its
// commands at the top of its runner below.
type block struct {
	pre  []string
	cmds []string
	out  []string
}

func parseBlocks(t *testing.T, path string) []block {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []block
	var b block
	inOut := false
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		switch {
		case inOut && l == "":
			blocks = append(blocks, b)
			b, inOut = block{}, false
		case inOut:
			b.out = append(b.out, l)
		case l == "----":
			inOut = true
		case len(b.cmds) == 0 && (l == "" || strings.HasPrefix(l, "#")):
			b.pre = append(b.pre, l)
		default:
			b.cmds = append(b.cmds, l)
		}
	}
	if inOut || len(b.cmds) > 0 {
		blocks = append(blocks, b)
	}
	return blocks
}

// runTrace runs every block's commands through run and compares (or,
// with -rewrite, rewrites) the output.
func runTrace(t *testing.T, path string, run func(cmd string) []string) {
	blocks := parseBlocks(t, path)
	var w strings.Builder
	for i, b := range blocks {
		var out []string
		for _, c := range b.cmds {
			out = append(out, run(c)...)
		}
		if !*rewrite && strings.Join(out, "\n") != strings.Join(b.out, "\n") {
			t.Errorf("%s block %d (%s):\ngot:\n%s\nwant:\n%s", path, i+1, b.cmds[0], strings.Join(out, "\n"), strings.Join(b.out, "\n"))
		}
		for _, l := range b.pre {
			w.WriteString(l + "\n")
		}
		for _, c := range b.cmds {
			w.WriteString(c + "\n")
		}
		w.WriteString("----\n")
		for _, l := range out {
			w.WriteString(l + "\n")
		}
		w.WriteString("\n")
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(strings.TrimRight(w.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func errLine(err error) string {
	if err == nil {
		return "ok"
	}
	return fmt.Sprintf("error %s: %s", pgerr.CodeOf(err), err.Error())
}

// TestCatalogTrace replays testdata/catalog.trace:
//
//	apply id=<id> [partitions=<n>]: <sql>   apply the next record (offsets count from 0)
//	state                                   dump the catalog
func TestCatalogTrace(t *testing.T) {
	c := NewCatalog()
	runTrace(t, filepath.Join("testdata", "catalog.trace"), func(cmd string) []string {
		switch {
		case strings.HasPrefix(cmd, "apply "):
			head, text, ok := strings.Cut(strings.TrimPrefix(cmd, "apply "), ": ")
			if !ok {
				t.Fatalf("bad apply %q", cmd)
			}
			e := Entry{SQL: text}
			for _, f := range strings.Fields(head) {
				k, v, _ := strings.Cut(f, "=")
				switch k {
				case "id":
					e.ID = v
				case "partitions":
					n, _ := strconv.Atoi(v)
					e.Partitions = int32(n)
				}
			}
			ch, err := c.Apply(c.Applied+1, e)
			if err != nil {
				return []string{fmt.Sprintf("@%d %s", c.Applied, errLine(err))}
			}
			return []string{fmt.Sprintf("@%d %s %s", c.Applied, ch.Tag(), ch.Name)}
		case cmd == "state":
			return dumpCatalog(c)
		}
		t.Fatalf("unknown command %q", cmd)
		return nil
	})
}

func dumpCatalog(c *Catalog) []string {
	var out []string
	for name, s := range c.Sources {
		var cols []string
		for _, col := range s.Schema {
			cols = append(cols, col.Name+" "+col.T.String())
		}
		out = append(out, fmt.Sprintf("source %s (%s) topic=%s", name, strings.Join(cols, ", "), s.Topic))
	}
	for name, v := range c.Views {
		var cols []string
		for _, col := range v.Schema {
			cols = append(cols, col.Name+" "+col.T.String())
		}
		out = append(out, fmt.Sprintf("view %s on %s ident=%s key_groups=%d keys=%v (%s)", name, v.Source, v.Ident, v.Partitions, v.Keys, strings.Join(cols, ", ")))
	}
	for name, k := range c.Sinks {
		out = append(out, fmt.Sprintf("sink %s from %s topic=%s format=%s", name, k.View, k.Topic, k.Format))
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = []string{"(empty)"}
	}
	return out
}

// TestKeyGroupsTrace replays testdata/keygroups.trace against the view
// SELECT k, count(*) AS n, sum(x) AS s, max(x) AS m FROM src GROUP BY k
// over src (k int, x int):
//
//	assign <p> <nonce> | fenced <p> | revoke <p>      print the actions
//	restore <p> fence <nonce> | restore <p> sink <name> | restore <p> group k=<k> n=<n> s=<s> m=<m>
//	begin | update <p> k=<k> x=<x> | snapshot <sink>... | changes
//	end commit <epoch> | end abort
//	state
func TestKeyGroupsTrace(t *testing.T) {
	c := NewCatalog()
	for _, s := range []string{
		"CREATE SOURCE src (k int, x int) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = 'b:9092') FORMAT PLAIN ENCODE JSON",
		"CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n, sum(x) AS s, max(x) AS m FROM src GROUP BY k",
	} {
		if _, err := c.Apply(c.Applied+1, Entry{ID: "v1", SQL: s, Partitions: 2}); err != nil {
			t.Fatal(err)
		}
	}
	v := c.Views["v"]
	kg := newKeyGroups(v)
	acts := func(as []action) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.String())
		}
		return out
	}
	ints := func(fs []string) map[string]int64 {
		m := map[string]int64{}
		for _, f := range fs {
			k, val, _ := strings.Cut(f, "=")
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				t.Fatalf("bad %q", f)
			}
			m[k] = n
		}
		return m
	}
	part := func(s string) int32 {
		p, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("bad key group %q", s)
		}
		return int32(p)
	}
	runTrace(t, filepath.Join("testdata", "keygroups.trace"), func(cmd string) []string {
		f := strings.Fields(cmd)
		switch f[0] {
		case "assign":
			return acts(kg.assign(part(f[1]), f[2]))
		case "fenced":
			return acts(kg.fenced(part(f[1])))
		case "revoke":
			return acts(kg.revoke(part(f[1])))
		case "restore":
			var key, val []byte
			switch f[2] {
			case "fence":
				key, val = []byte("\x00fence"), []byte(f[3])
			case "sink":
				key, val = []byte("\x00sink:"+f[3]), []byte("1")
			case "group":
				m := ints(f[3:])
				key = append([]byte{changelogGroup}, v.groupKey(types.Row{types.DInt(m["k"]), {}})...)
				val = encodeAccs([]acc{{n: m["n"]}, {n: m["n"], v: m["s"]}, {n: m["n"], v: m["m"]}})
			}
			done, err := kg.restoreRecord(part(f[1]), key, val)
			if err != nil {
				return []string{errLine(err)}
			}
			if done {
				return []string{"restored"}
			}
			return nil
		case "begin":
			kg.begin()
			return nil
		case "update":
			m := ints(f[2:])
			row := types.Row{types.DInt(m["k"]), types.DInt(m["x"])}
			if err := kg.update(part(f[1]), v.groupKey(row), row); err != nil {
				return []string{errLine(err)}
			}
			return nil
		case "snapshot":
			snaps := kg.needSnapshot(f[1:])
			var out []string
			for p, ss := range snaps {
				out = append(out, fmt.Sprintf("snapshot p%d %s", p, strings.Join(ss, ",")))
			}
			sort.Strings(out)
			return out
		case "changes":
			var out []string
			for _, ch := range kg.changes() {
				out = append(out, fmt.Sprintf("p%d %s -> %s", ch.part, fmtRow(v, ch.old), fmtRow(v, ch.new)))
			}
			return out
		case "end":
			if f[1] == "commit" {
				e, _ := strconv.ParseUint(f[2], 10, 64)
				return acts(kg.end(true, e))
			}
			return acts(kg.end(false, 0))
		case "state":
			return strings.Split(strings.TrimRight(kg.String(), "\n"), "\n")
		}
		t.Fatalf("unknown command %q", cmd)
		return nil
	})
}

func fmtRow(v *View, r types.Row) string {
	if r == nil {
		return "none"
	}
	var parts []string
	for i, d := range r {
		parts = append(parts, types.FormatText(d, v.Schema[i].T, nil))
	}
	return "(" + strings.Join(parts, ",") + ")"
}
