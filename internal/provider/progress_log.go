package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// The engine reports copies and hashes that run longer than
// sandbox.ProgressInterval, and a summary of every copy, through this sink:
// INFO lines, visible with TF_LOG_PROVIDER=info.
func init() {
	sandbox.SetProgressSink(logProgress)
}

func logProgress(ctx context.Context, r sandbox.ProgressReport) {
	tflog.Info(ctx, r.String(), map[string]any{
		"op": r.Op, "files": r.Files, "total_files": r.TotalFiles, "bytes": r.Bytes, "total_bytes": r.TotalBytes,
		"seconds": r.Elapsed.Seconds(), "mb_per_s": r.MBps(), "done": r.Done,
	})
}
