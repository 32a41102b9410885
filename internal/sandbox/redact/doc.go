// Package redact keeps secrets out of what the provider shows: the forms a
// secret takes in text (plain, URL- and base64-encoded, basic auth) and
// their replacement in messages and errors, the write-only values a
// configuration declared, and the scan that stops an export or a snapshot
// of a file holding one of them.
package redact
