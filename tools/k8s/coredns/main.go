// CoreDNS with only the plugins the node's Corefile (node.sh) uses. The stock build links every
// plugin, with the cloud providers' SDKs, and was the longest single build of a cold CI run.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/ready"
)

// The plugins in CoreDNS's own order (core/dnsserver/zdirectives.go), which sets their order in a query's chain.
func init() { dnsserver.Directives = []string{"bind", "ready", "errors", "kubernetes"} }

func main() { coremain.Run() }
