#!/usr/bin/env bash
# The chart on a real single-node Kubernetes: builds (once, cached by version) the node's
# components and the registry-free base image, builds the repository's image, starts the node,
# loads the image, runs the chart linters and test/k8s/cluster.e2e.ts. The node is torn down on every exit, passed
# or failed. Needs root. Locally: `sudo bash .ci/k8s.sh` (after `npm ci`).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> k8s: %s\n' "$*"; }
started=$SECONDS

step "node components: $(bash tools/k8s/build-node.sh) (control plane: $(bash tools/k8s/build.sh))"
export PATH="$(bash tools/k8s/build-node.sh --dir):$(bash tools/k8s/build.sh --dir):$PATH"
export DOCKER_HOST=unix:///run/muse-k8s-docker.sock

trap 'step "tearing the node down"; bash tools/k8s/node.sh down || true' EXIT
bash tools/k8s/node.sh docker
base="$(bash tools/k8s/base-image.sh)"

image=muse:e2e
step "docker build (base $base)"
build_started=$SECONDS
nice docker build --network host -q --build-arg NODE_IMAGE="$base" -t "$image" . >/dev/null
docker tag "$image" muse:e2e-next
base_size=$(docker image inspect -f '{{.Size}}' "$base")
size=$(docker image inspect -f '{{.Size}}' "$image")
echo "built in $((SECONDS - build_started)) s: $((size / 1000000)) MB, $(((size - base_size) / 1000000)) MB above the base"

step "the image runs: migrate, both APIs /readyz, the worker (read-only root, uid 1000)"
nice node tools/k8s/image-check.ts "$image"

step "node up"
export KUBECONFIG="$(bash tools/k8s/node.sh up)"
bash tools/k8s/node.sh load "$image" muse:e2e-next

step "chart linters (kubeconform against this API server's schemas, kube-score, yamllint, helm lint)"
bash tools/k8s/chart-lint.sh

step "cluster end-to-end suite"
MUSE_K8S_IMAGE="$image" MUSE_K8S_NEXT_TAG=e2e-next npx vitest run --config test/k8s/vitest.config.ts
step "done in $((SECONDS - started)) s"
