package fshelper

// OpBatch runs several one-path operations in one helper process:
// `sandbox-fs-helper batch <root> .` reads the seal line, then a JSON list
// of BatchOp on stdin, runs them one after the other in that order, and
// answers Response.Batch, one Response per operation, each carrying that
// operation's own error. The provider coalesces the entry operations that
// Terraform runs concurrently on one workspace into one such process (see
// package incontainer), so a refresh or a destroy of N entries is not N
// processes started in the container. A helper that predates OpBatch
// exits 2 (unknown operation) and the provider runs the operations one by
// one.
const OpBatch = "batch"

// MaxBatchOps bounds the operations of one OpBatch; MaxBatchInput the
// bytes of its list (the stdin of batched writes included).
const (
	MaxBatchOps   = 64
	MaxBatchInput = 8 << 20
)

// BatchOp is one operation of an OpBatch: the op, path and argument of
// its command line, and its stdin (an OpWrite's tar stream), if any.
type BatchOp struct {
	Op  string `json:"op"`
	Rel string `json:"rel"`
	Arg string `json:"arg,omitempty"`
	In  []byte `json:"in,omitempty"`
}

// Batchable reports whether op may run inside an OpBatch: an
// operation on one path whose answer is one small Response and that
// streams nothing to stdout.
func Batchable(op string) bool {
	switch op {
	case OpStat, OpHash, OpMkEntry, OpMkdir, OpChmod, OpChgrp, OpChown, OpRemove, OpWrite, OpInit:
		return true
	}
	return false
}
