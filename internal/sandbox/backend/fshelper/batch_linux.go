//go:build linux

package fshelper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

// runBatch runs the operations listed on r (after the seal line, already
// read) one after the other; each one's failure is its own Response's
// error. Only a list that cannot be read is an error of the batch.
func runBatch(ctx context.Context, b *local.Backend, r io.Reader) (Response, error) {
	if r == nil {
		return Response{}, fmt.Errorf("%w: no operation list on stdin", errUsage)
	}
	var ops []BatchOp
	dec := json.NewDecoder(io.LimitReader(r, MaxBatchInput+1))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ops); err != nil {
		return Response{}, fmt.Errorf("%w: reading the operation list: %w", errUsage, err)
	}
	if len(ops) > MaxBatchOps {
		return Response{}, fmt.Errorf("%w: %d operations in one batch, at most %d", errUsage, len(ops), MaxBatchOps)
	}
	out := make([]Response, len(ops))
	for i, op := range ops {
		if !Batchable(op.Op) {
			out[i] = Response{Error: ErrorFrom(fmt.Errorf("%w: operation %q cannot be batched", errUsage, op.Op))}
			continue
		}
		resp, err := run(ctx, b, op.Op, op.Rel, op.Arg, bytes.NewReader(op.In))
		if err != nil {
			if errors.Is(err, errUsage) {
				err = fmt.Errorf("%s %q: %w", op.Op, op.Rel, err)
			}
			resp = Response{Error: ErrorFrom(err)}
		}
		out[i] = resp
	}
	return Response{Batch: out}, nil
}
