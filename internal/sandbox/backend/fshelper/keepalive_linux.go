package fshelper

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// keepAlive runs OpKeepAlive. The wall clock is checked at least every
// minute, so a suspended host does not stretch the deadline.
func keepAlive(deadline string, stderr io.Writer) int {
	t, err := time.Parse(time.RFC3339, deadline)
	if err != nil {
		fmt.Fprintf(stderr, "%s %s: %v\n", HelperName, OpKeepAlive, err)
		return 2
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	for {
		left := time.Until(t)
		if left <= 0 {
			fmt.Fprintf(stderr, "workspace expired at %s\n", deadline)
			return 0
		}
		select {
		case <-sig:
			return 0
		case <-time.After(min(left, time.Minute)):
		}
	}
}
