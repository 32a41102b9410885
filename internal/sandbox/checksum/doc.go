// Package checksum computes the digests of files and trees that the
// provider publishes and compares (SHA-256 and the other digests Terraform's
// file functions give), streaming and in parallel chunks, and the tree
// digest of a directory listing.
package checksum
