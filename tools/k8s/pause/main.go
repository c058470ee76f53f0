// The pod sandbox's process: holds the pod's namespaces, reaps orphans (it is PID 1 in a pod that
// shares its PID namespace) and exits on SIGTERM or SIGINT. Built here because there is no registry
// to pull the usual pause image from.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for sig := range signals {
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
