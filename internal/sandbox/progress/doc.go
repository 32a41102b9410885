// Package progress reports the progress of long copies and hashes to a
// process-wide sink (the provider's log), once an operation has run longer
// than Interval.
package progress
