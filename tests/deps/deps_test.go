// Package deps enforces the dependency direction of DESIGN.md §1: a
// package may import only packages above it in the layout table (tests
// excepted). Leaf helpers under internal/ may be imported by everyone and
// import no other weir package except internal/ ones.
package deps

import (
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/weirdb/weir"

// layers is DESIGN.md §1's table, top to bottom. A package belongs to the
// entry that is the longest prefix of its path (relative to the module);
// internal/types counts as types.
var layers = []string{
	"types",
	"functions",
	"storage",
	"sql",
	"sql/catalog",
	"planner",
	"executor",
	"connector",
	"checkpoint",
	"engine/syscat",
	"engine",
	"wire",
	"cluster",
	"cmd/weir",
	"tests",
}

// interfaceEdges are the imports the table's own text asks for against its
// order: §1's wire row says wire "defines the handler interface that engine
// satisfies", and in Go satisfying an interface whose methods mention
// wire's types means importing wire. wire itself still may not import
// engine (it is checked both ways: wire sits below engine).
var interfaceEdges = map[[2]string]bool{
	{"engine", "wire"}: true,
}

// layer returns the rank of a module-relative package path: its index in
// layers, -1 for internal/ leaves, or an error for a package the table
// does not place.
func layer(rel string) (int, error) {
	if rel == "internal/types" || strings.HasPrefix(rel, "internal/types/") {
		return 0, nil
	}
	if strings.HasPrefix(rel, "internal/") {
		return -1, nil
	}
	best, bestLen := -2, -1
	for i, l := range layers {
		if (rel == l || strings.HasPrefix(rel, l+"/")) && len(l) > bestLen {
			best, bestLen = i, len(l)
		}
	}
	if best == -2 {
		return 0, fmt.Errorf("package %s is not placed in DESIGN.md §1's table; add it there and to layers in this test", rel)
	}
	return best, nil
}

// check returns the violations in a graph of module-relative package paths
// to their direct (non-test) imports of other module packages.
func check(graph map[string][]string) []string {
	var bad []string
	for pkg, imports := range graph {
		from, err := layer(pkg)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		for _, imp := range imports {
			to, err := layer(imp)
			if err != nil {
				bad = append(bad, err.Error())
				continue
			}
			switch {
			case to == -1 && from == -1:
				// internal leaves may use each other.
			case to == -1:
				// everyone may use internal leaves.
			case from == -1:
				bad = append(bad, fmt.Sprintf("%s imports %s: internal/ leaf packages may import only other internal/ packages", pkg, imp))
			case to == from:
				// Packages of one entry (connector/kafka and connector,
				// executor and its subpackages, tests/...) may use each
				// other.
			case interfaceEdges[[2]string{layers[from], layers[to]}]:
				// allowed by the table's text, see interfaceEdges.
			case to >= from:
				bad = append(bad, fmt.Sprintf("%s imports %s, which is not above it in DESIGN.md §1", pkg, imp))
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// TestImportDirection lists every package of the module with its direct
// imports (go list, without tests) and checks them against the table.
func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"/...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], module) {
			continue
		}
		pkg := rel(f[0])
		graph[pkg] = nil
		for _, imp := range f[1:] {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				graph[pkg] = append(graph[pkg], rel(imp))
			}
		}
	}
	if len(graph) < 5 {
		t.Fatalf("go list found only %d packages: %v", len(graph), graph)
	}
	for _, v := range check(graph) {
		t.Error(v)
	}
}

func rel(path string) string { return strings.TrimPrefix(strings.TrimPrefix(path, module), "/") }

// TestCheckFindsViolations feeds check a graph with known violations.
func TestCheckFindsViolations(t *testing.T) {
	graph := map[string][]string{
		"types":              {"internal/pgerr"},
		"sql":                {"types", "internal/pgerr"},
		"sql/catalog":        {"sql", "types"},
		"planner":            {"sql/catalog", "executor"},   // executor is below planner
		"sql/parser":         {"sql/catalog"},               // sql/catalog is below sql
		"internal/pgerr":     {"types"},                     // a leaf importing weir
		"connector/kafka":    {"connector", "executor"},     // fine
		"wire":               {"engine", "types"},           // engine is above wire
		"engine":             {"wire"},                      // allowed: wire's handler interface
		"metrics":            nil,                           // not in the table
		"internal/types":     {"internal/pgerr"},            // the types package's home
		"executor":           {"internal/types", "planner"}, // fine
		"cmd/weir":           {"wire", "engine"},            // fine
		"tests/slt":          {"tests/testenv"},             // fine
		"checkpoint":         {"connector/kafka"},           // fine
		"storage":            {"sql"},                       // sql is below storage
		"connector/nexmark":  {"checkpoint"},                // checkpoint is below connector
		"executor/aggregate": {"executor"},                  // same entry
		"functions":          {"types", "planner"},          // planner is below functions
	}
	got := check(graph)
	want := []string{
		"connector/nexmark imports checkpoint, which is not above it in DESIGN.md §1",
		"functions imports planner, which is not above it in DESIGN.md §1",
		"internal/pgerr imports types: internal/ leaf packages may import only other internal/ packages",
		"package metrics is not placed in DESIGN.md §1's table; add it there and to layers in this test",
		"planner imports executor, which is not above it in DESIGN.md §1",
		"sql/parser imports sql/catalog, which is not above it in DESIGN.md §1",
		"storage imports sql, which is not above it in DESIGN.md §1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSystemCatalogBelowEngine checks that the system catalog (package
// engine/syscat) may not import the engine back, though its path lies
// inside engine's: it reads the engine only through the provider the
// engine hands it.
func TestSystemCatalogBelowEngine(t *testing.T) {
	got := check(map[string][]string{
		"engine":        {"engine/syscat", "wire"},
		"engine/syscat": {"engine", "sql/catalog"},
	})
	want := "engine/syscat imports engine, which is not above it in DESIGN.md §1"
	if len(got) != 1 || got[0] != want {
		t.Errorf("violations %q, want only %q", got, want)
	}
}
