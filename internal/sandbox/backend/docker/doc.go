// Package docker implements backend.Backend for a workspace inside a Docker
// container, following the Python SDK's Docker backend (design/sdk-model.md §6.2): the
// container runs `tail -f /dev/null` as its entrypoint so it stays up,
// exposed ports are published on 127.0.0.1 with ephemeral host ports, the
// workspace root is created at start and users and groups are provisioned
// with the image's own tools (design/sdk-model.md §4.1).
//
// # Files and commands
//
// Every file operation and command runs in the container with `docker
// exec`: the file helper does the file operations, as package incontainer
// describes, which Backend embeds. The helper is copied into a container
// once, through the daemon's archive API (or, where a volume plugin
// refuses that, through a shell). The helper must match the daemon's CPU
// architecture; a mismatch is reported as such.
//
// # Connection
//
// The daemon is found as the docker CLI finds it (DOCKER_HOST, including
// ssh:// through `ssh ... docker system dial-stdio`, DOCKER_CERT_PATH,
// DOCKER_TLS_VERIFY), overridable per provider (HostConfig). TLS always
// verifies the daemon: material without a CA certificate is an error.
package docker
