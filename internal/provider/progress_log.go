package provider

import (
	"context"
	"strconv"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/progress"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// The engine reports copies and hashes that run longer than
// progress.Interval, and a summary of every copy, through this sink:
// INFO lines, visible with TF_LOG_PROVIDER=info.
func init() {
	progress.SetSink(logProgress)
}

// Counts are logged as decimal strings: Terraform prints a log field's
// number as a float, and a byte count as 3.145728e+08.
func logProgress(ctx context.Context, r progress.Report) {
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	tflog.Info(ctx, r.String(), map[string]any{
		"op": r.Op, "files": n(r.Files), "total_files": n(r.TotalFiles), "bytes": n(r.Bytes), "total_bytes": n(r.TotalBytes),
		"seconds": r.Elapsed.Seconds(), "mb_per_s": r.MBps(), "done": r.Done,
	})
}
