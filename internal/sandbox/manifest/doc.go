// Package manifest is the Python SDK's workspace manifest model: the
// Manifest with its entry tree, environment, accounts and extra path
// grants, the entry types and mount strategies, and their JSON form,
// parsed with the Python SDK's validation messages and written byte for
// byte as the Python SDK dumps it. It builds on the core package sandbox
// (permissions, path rules, errors) and touches no file.
package manifest
