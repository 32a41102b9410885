package docker_test

import "github.com/moby/moby/client"

func clientStop() client.ContainerStopOptions {
	t := 0
	return client.ContainerStopOptions{Timeout: &t}
}
