package sandbox

import "encoding/json"

// RegisterVectorHandler lets conformance handlers that live in the external
// test package (package sandbox_test, which may import packages that import
// this one, such as mount) run vectors of an area through TestSeedVectors.
// caseName is the vector's case, input its raw input, expected its decoded
// expected value. Handlers return a JSON-shaped result, an engine error, or
// an error from Unsupported.
func RegisterVectorHandler(area string, h func(caseName string, input json.RawMessage, expected any) (any, error)) {
	caseHandlers[area] = h
}

// Unsupported marks a vector the engine cannot express, with a reason.
func Unsupported(format string, args ...any) error { return unsupported(format, args...) }
