package engine

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/connector/nexmark"
)

func TestZZExplainTmp(t *testing.T) {
	opts := nexmark.SourceOptions{Events: 1000, Splits: 1, BaseMillis: nexmarkBase, Watermark: true}
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	for _, k := range []nexmark.TableType{nexmark.Person, nexmark.Auction, nexmark.Bid} {
		mustRun(t, s, nexmark.DDL(k, opts))
	}
	for _, q := range nexmark.Queries() {
		if !strings.Contains(os.Getenv("Q"), q.Name+",") {
			continue
		}
		rows := mustRun(t, s, "EXPLAIN CREATE MATERIALIZED VIEW "+q.Name+" AS "+q.SQL)
		fmt.Println(q.Name)
		fmt.Println(strings.Join(rows, "\n"))
	}
}
