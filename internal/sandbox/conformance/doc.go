// Package conformance holds only tests: it runs the Python SDK's observed
// behaviours (testdata/seed-vectors.json, plus the files named in
// SANDBOX_SEED_VECTORS) through the engine's packages and prints one line
// of counts per vector file.
package conformance
