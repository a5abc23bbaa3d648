package planner

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/weirdb/weir/sql/catalog"
)

// PlanShape returns a text that two bound plans share when they compute
// the same thing: the same nodes, expressions, constants and types over
// the same columns of the same relations (by id), whatever names
// relations, columns and outputs were bound under. A rename checks with
// it that a definition written anew means what it meant.
func PlanShape(p Plan) string {
	var b strings.Builder
	shape(&b, reflect.ValueOf(p))
	return b.String()
}

// StreamShape is PlanShape for a streaming plan: a sink's plan planned
// anew after a rename must read the same columns of the same relations.
func StreamShape(n StreamNode) string {
	var b strings.Builder
	shape(&b, reflect.ValueOf(n))
	return b.String()
}

var relationType = reflect.TypeOf((*catalog.Relation)(nil))

func shape(b *strings.Builder, v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if v.Type() == relationType {
			fmt.Fprintf(b, "rel%d", v.Interface().(*catalog.Relation).ID)
			return
		}
		shape(b, v.Elem())
	case reflect.Struct:
		b.WriteString(v.Type().Name() + "{")
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Name == "Name" || f.Name == "SeqName" {
				// Names, and a scanned sequence's name beside the
				// sequence (SystemScan.Seq), which says which it is.
				continue
			}
			shape(b, v.Field(i))
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			shape(b, v.Index(i))
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case reflect.Map, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		b.WriteString(v.Kind().String())
	default:
		fmt.Fprint(b, v.Interface())
	}
}
