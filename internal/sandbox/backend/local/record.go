package local

// RecordAttrPrefix prefixes the extended attribute of a named record on a
// local workspace's root (beside MarkerAttr): "user.sandbox.record.<name>".
// Like the marker it lives on the root directory itself, so it is never
// in the tree the agent sees, never in a snapshot, and goes with the
// directory.
const RecordAttrPrefix = "user.sandbox.record."
