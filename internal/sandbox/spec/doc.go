// Package spec holds what a workspace is declared as, one type per
// workspace backend (Docker, Kubernetes), with the errors that name a
// field of it and what a backend reports back (Info). It does no I/O: the
// provider builds a spec from its configuration, the engine passes it on,
// and the backend consumes it, so each field is declared once.
package spec
