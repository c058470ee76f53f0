#!/usr/bin/env bash
# Builds kube-apiserver, etcd and helm from the pinned tools module (go.mod here) into a cache
# directory keyed by their versions. A no-op when the binaries are already there, so CI calls it
# on every run. Prints the directory on stdout; progress goes to stderr.
#
#   tools/k8s/build.sh            # build when missing
#   tools/k8s/build.sh --dir      # only print where the binaries are (or would be)
#   MUSE_K8S_BIN_DIR=... build.sh # somewhere else than $HOME/.cache/muse-bin
set -euo pipefail

# All in one function: bash has parsed it completely before running, so editing this file
# during a long build cannot derail the running one.
main() {

  KUBE_VERSION=v1.37.1
  ETCD_VERSION=v3.7.0
  HELM_VERSION=v3.22.0

  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  bin_dir="${MUSE_K8S_BIN_DIR:-$HOME/.cache/muse-bin/k8s-kube${KUBE_VERSION}-etcd${ETCD_VERSION}-helm${HELM_VERSION}}"

  if [[ "${1:-}" == "--dir" || ( -x "$bin_dir/kube-apiserver" && -x "$bin_dir/etcd" && -x "$bin_dir/helm" ) ]]; then
    echo "$bin_dir"
    exit 0
  fi

  command -v go >/dev/null || { echo "build.sh: Go is needed to build the control plane (go.dev/dl)" >&2; exit 1; }

  kube_major="${KUBE_VERSION#v}"; kube_major="${kube_major%%.*}"
  kube_minor="${KUBE_VERSION#v*.}"; kube_minor="${kube_minor%%.*}"

  # Without these the binaries report v0.0.0-master (kubectl cannot parse it) and Helm assumes
  # Kubernetes 1.20.
  kube_ldflags=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    kube_ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=$kube_major -X $pkg.gitMinor=$kube_minor"
    kube_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  helm_ldflags="-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  for pkg in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
    helm_ldflags+=" -X $pkg.k8sVersionMajor=$kube_major -X $pkg.k8sVersionMinor=$kube_minor"
  done

  staging="$(mktemp -d "${bin_dir}.partial.XXXXXX" 2>/dev/null || { mkdir -p "$(dirname "$bin_dir")"; mktemp -d "${bin_dir}.partial.XXXXXX"; })"
  trap 'rm -rf "$staging"' EXIT

  cd "$here"
  export CGO_ENABLED=0 GOFLAGS=-mod=mod
  build() {
    local name="$1" pkg="$2" ldflags="$3" started=$SECONDS
    echo "build.sh: building $name ($pkg)" >&2
    go build -trimpath -ldflags "-s -w $ldflags" -o "$staging/$name" "$pkg"
    echo "build.sh: $name built in $((SECONDS - started)) s" >&2
  }
  build etcd go.etcd.io/etcd/server/v3 ""
  build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$kube_ldflags"
  build helm helm.sh/helm/v3/cmd/helm "$helm_ldflags"

  mkdir -p "$(dirname "$bin_dir")"
  rm -rf "$bin_dir"
  mv "$staging" "$bin_dir"
  trap - EXIT
  echo "$bin_dir"
}

main "$@"
