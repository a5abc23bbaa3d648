package cluster

import (
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
)

// TestCheckRefusesNoData checks that cluster mode, whose views always
// run, refuses CREATE MATERIALIZED VIEW ... WITH NO DATA (0A000) rather
// than create a populated view.
func TestCheckRefusesNoData(t *testing.T) {
	st, err := sql.Parse("CREATE MATERIALIZED VIEW v AS SELECT k, count(*) FROM s GROUP BY k WITH NO DATA")
	if err != nil {
		t.Fatal(err)
	}
	if err := NewCatalog().Check(st, 1); pgerr.CodeOf(err) != pgerr.FeatureNotSupported {
		t.Fatalf("Check = %v, want 0A000", err)
	}
}
