package planner

import "github.com/weirdb/weir/sql/catalog"

// pinnedCatalog is the catalog as a stored definition was bound against
// it: the tables it pins (catalog.Relation.DepCols) show the columns and
// names they had then.
type pinnedCatalog struct {
	Catalog
	pins map[uint32][]string
}

// PinnedCatalog returns cat as the stored definition of a relation with
// the given DepCols sees it: each pinned table is a copy whose Cols are
// cut to the pinned columns, under their pinned names (a dropped column
// keeps its dropped name). Its rows are still read by the table's id:
// storage ignores the columns a reader does not know. With no pins it
// returns cat.
func PinnedCatalog(cat Catalog, pins map[uint32][]string) Catalog {
	if p, ok := cat.(pinnedCatalog); ok {
		cat = p.Catalog
	}
	if len(pins) == 0 {
		return cat
	}
	return pinnedCatalog{Catalog: cat, pins: pins}
}

// Relation implements Catalog.
func (p pinnedCatalog) Relation(schema, name string) (*catalog.Relation, bool) {
	rel, ok := p.Catalog.Relation(schema, name)
	if !ok {
		return rel, ok
	}
	return PinRelation(rel, p.pins), true
}

// PinRelation returns rel as seen through pins (see PinnedCatalog).
func PinRelation(rel *catalog.Relation, pins map[uint32][]string) *catalog.Relation {
	names, ok := pins[rel.ID]
	if !ok || rel.Kind != catalog.KindTable && rel.Kind != catalog.KindView && rel.Kind != catalog.KindMView {
		return rel
	}
	cp := rel.Clone()
	if len(names) < len(cp.Cols) {
		cp.Cols = cp.Cols[:len(names)]
	}
	for i := range cp.Cols {
		if !cp.Cols[i].Dropped {
			cp.Cols[i].Name = names[i]
		}
	}
	return cp
}
