// Command kubepause is the pod sandbox ("pause") process of the test
// cluster that scripts/kube-up.sh brings up: built static and imported into
// containerd as the image its CRI plugin starts first in every pod. It holds
// the pod's namespaces open, reaps the zombies handed to it as PID 1, and
// exits 0 on SIGINT or SIGTERM.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range sigs {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
