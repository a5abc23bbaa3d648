package stream

import (
	"context"

	"github.com/weirdb/weir/types"
)

// Union merges inputs with identical schemas (UNION ALL). Every input is
// an exchange receiver (the builder runs each input in actors of its
// own), so Union reads all of their channels at once.
//
//   - Chunk: returned as received, from whichever input has one.
//   - Watermark: per column, the minimum over all inputs' channels,
//     returned when it rises.
//   - Barrier: aligned across inputs: an input that delivered barrier e
//     is not read again until every input delivered e; then e is
//     returned once.
type Union struct {
	al     *aligner
	inputs []Operator
}

var _ Operator = (*Union)(nil)

// NewUnion returns a Union of inputs, which must be exchange receivers
// (Merge).
func NewUnion(actx *ActorContext, inputs []Operator) (*Union, error) {
	al, err := alignGroups(inputs, false)
	if err != nil {
		return nil, err
	}
	return &Union{al: al, inputs: inputs}, nil
}

// Next implements Operator.
func (u *Union) Next(ctx context.Context) (types.Message, error) {
	_, msg, err := u.al.next(ctx)
	return msg, err
}

// Close implements Operator.
func (u *Union) Close() {
	for _, in := range u.inputs {
		in.Close()
	}
}
