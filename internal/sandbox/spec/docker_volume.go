package spec

// DockerVolume is a named Docker volume to create, the Python SDK's docker_volume
// mount strategy (design/sdk-model.md §5.3, §5.6).
type DockerVolume struct {
	// Name is the volume's name on the daemon; required.
	Name string
	// Driver is the volume driver, such as "rclone" or "local";
	// "" means the daemon's default, "local".
	Driver string
	// Options are the driver options. They often hold credentials: they
	// are sent to the daemon and compared with an existing volume's, but
	// never returned, logged or put in an error message.
	Options map[string]string
	// Labels are added to the volume, besides the provider's sandbox.managed=true.
	Labels map[string]string
}

// DockerVolumeInfo is what the Docker backend reports of a volume; the driver
// options are deliberately absent (they may hold credentials).
type DockerVolumeInfo struct {
	// Name is the volume's name; Driver the driver it was created with,
	// as the daemon names it (a plugin may carry its tag, "rclone:latest").
	Name, Driver string
	// Labels are the volume's labels (sandbox.managed included).
	Labels map[string]string
	// Exists is false, with every other field empty, when the daemon has
	// no volume of that name.
	Exists bool
}
