package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
)

// InputsVersion names the canonical form hashed by Inputs.SHA256; a new
// form gets a new name, so a digest never changes meaning.
const InputsVersion = "sandbox_inputs_v1"

// Inputs are what determine a prepared environment: the image it starts
// from (reference and, where known, digest), the digests of its declared
// entries (workspace-relative path → SHA-256) and the setup commands in
// order, each with its text and the names of its environment variables
// (values are not part of it).
type Inputs struct {
	Image       string
	ImageDigest string
	Entries     map[string]string
	Commands    []InputCommand
}

// InputCommand is one setup command: an argv (Command) or a Shell
// script, its working directory and environment variable names.
type InputCommand struct {
	Command     []string
	Shell       string
	WorkingDir  string
	Environment []string
}

// SHA256 is the hex SHA-256 of the canonical JSON of in (keys sorted,
// environment names sorted and deduplicated, null and empty alike).
func (in Inputs) SHA256() string {
	type command struct {
		Command     []string `json:"command"`
		Shell       string   `json:"shell"`
		WorkingDir  string   `json:"working_dir"`
		Environment []string `json:"environment"`
	}
	doc := struct {
		Version     string            `json:"version"`
		Image       string            `json:"image"`
		ImageDigest string            `json:"image_digest"`
		Entries     map[string]string `json:"entries"`
		Commands    []command         `json:"commands"`
	}{Version: InputsVersion, Image: in.Image, ImageDigest: in.ImageDigest, Entries: in.Entries, Commands: []command{}}
	if doc.Entries == nil {
		doc.Entries = map[string]string{}
	}
	for _, c := range in.Commands {
		env := slices.Compact(slices.Sorted(slices.Values(c.Environment)))
		if env == nil {
			env = []string{}
		}
		argv := c.Command
		if argv == nil {
			argv = []string{}
		}
		doc.Commands = append(doc.Commands, command{Command: argv, Shell: c.Shell, WorkingDir: c.WorkingDir, Environment: env})
	}
	b, err := json.Marshal(doc) // maps marshal with sorted keys
	if err != nil {
		panic(err) // strings, maps and slices of strings always marshal
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
