//go:build linux

package fshelper

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

// maxExportList bounds the JSON list of files OpExport reads on stdin.
const maxExportList = 256 << 20

// exportOut writes the tar of the files listed on stdin (a JSON list of
// workspace-relative paths) to stdout (OpExport), holes of sparse files
// left out (backend.ExportArchiver); failures go to stderr with exit
// status 1, the archive cut short.
func exportOut(root string, stdin io.Reader, stdout, stderr io.Writer) int {
	var files []string
	if err := json.NewDecoder(io.LimitReader(stdin, maxExportList)).Decode(&files); err != nil {
		fmt.Fprintf(stderr, "%s: bad file list on stdin: %v\n", OpExport, err)
		return 2
	}
	if err := local.New(root).ExportArchive(context.Background(), files, stdout); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", OpExport, err)
		return 1
	}
	return 0
}
