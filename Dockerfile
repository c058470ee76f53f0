# The Muse platform image: one image, every process (`muse-server content-api | chat-api | worker |
# migrate | operator`). It runs the JavaScript that `scripts/build.ts` compiles (no type stripping):
# one stage installs every dependency and compiles, another keeps the production dependencies
# only, and the last holds those and the compiled output.
#
# The base is a build argument: the official `node:24-slim` by default; on a machine without a
# container registry, `tools/k8s/base-image.sh` builds a Debian + Node 24 base to pass instead
# (`--build-arg NODE_IMAGE=muse-base:node24`). BuildKit is not needed.
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /app
# Manifests only, so the dependency layer is rebuilt only when they change.
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/content-api/package.json packages/content-api/
COPY packages/chat-api/package.json packages/chat-api/
COPY packages/server/package.json packages/server/
COPY packages/operator/package.json packages/operator/
COPY temporal/package.json temporal/
COPY sdk/package.json sdk/
COPY cli/package.json cli/
# A workspace of the tests' shared support (no dependencies): its manifest keeps npm ci in step with the lock.
COPY test/support/package.json test/support/
# Without the optional dependencies: the development Postgres (for `muse-server dev`) and swc's
# native compiler (the worker's workflow bundler hands it TypeScript only; the image's workflows
# are compiled JavaScript).
RUN npm ci --omit=optional --no-audit --no-fund && npm cache clean --force

FROM dependencies AS build
COPY LICENSE tsconfig.base.json tsconfig.build.json ./
COPY scripts/build.ts scripts/
COPY packages ./packages
COPY temporal ./temporal
COPY sdk ./sdk
# The SDK first: the content API compiles against its generated types (type imports only, so the
# image does not hold the SDK). Then each workspace keeps its manifest and compiled output, less
# the declarations.
RUN node scripts/build.ts sdk core content-api chat-api temporal operator server \
  && find packages/* temporal -mindepth 1 -maxdepth 1 ! -name dist ! -name package.json -exec rm -rf {} + \
  && find packages temporal -name '*.d.ts' -type f -delete \
  && chmod 0755 packages/server/dist/src/main.js

FROM dependencies AS production
# Production dependencies only. The AsyncAPI page's renderer is served as files, never imported:
# its own dependencies (React, jsdom, the AsyncAPI parser: about 80 MB) are pruned with it, and
# the two files /docs/asyncapi loads (packages/core/src/http/docs.ts) are put back. Also pruned: Temporal's native bridge
# for other platforms, type declarations, source maps and the SDK/CLI workspaces.
RUN mv node_modules/@asyncapi/react-component /tmp/renderer \
  && cp packages/core/package.json /tmp/core-package.json \
  && npm pkg delete 'dependencies.@asyncapi/react-component' -w @muse/core \
  && npm prune --omit=dev --omit=optional --no-audit --no-fund \
  && mkdir -p node_modules/@asyncapi/react-component/browser/standalone node_modules/@asyncapi/react-component/styles \
  && cp /tmp/renderer/package.json node_modules/@asyncapi/react-component/ \
  && cp /tmp/renderer/browser/standalone/index.js* node_modules/@asyncapi/react-component/browser/standalone/ \
  && cp /tmp/renderer/styles/default.min.css node_modules/@asyncapi/react-component/styles/ \
  && cp /tmp/core-package.json packages/core/package.json && rm -rf /tmp/renderer /tmp/core-package.json \
  && rm -rf node_modules/@muse/sdk node_modules/@muse/cli sdk cli \
  && find node_modules/@temporalio/core-bridge/releases -mindepth 1 -maxdepth 1 \
       ! -name "$(uname -m)-unknown-linux-gnu" -exec rm -rf {} + \
  && find node_modules \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \) -type f -delete
# What no process loads, found by size: Temporal's Rust sources (the bridge is prebuilt), the
# emoji images (the messaging API reads emoji.json only), other platforms' prebuilds of tar-fs's Bare runtime modules, moment's browser builds, documentation, and
# TypeScript sources (Node does not strip types under node_modules). Temporal's own sources stay:
# its workflow bundler reads them.
RUN rm -rf node_modules/@temporalio/core-bridge/sdk-core \
    node_modules/emoji-datasource/img node_modules/emoji-datasource/emoji_pretty.json \
    node_modules/moment/min node_modules/moment/src node_modules/moment-timezone/builds \
  && find node_modules/bare-*/prebuilds -mindepth 1 -maxdepth 1 ! -name "linux-$(node -p process.arch)" -exec rm -rf {} + \
  && find node_modules -path node_modules/@temporalio -prune -o -type f \( -name '*.ts' -o -name '*.md' \) -print0 | xargs -0 rm -f

FROM ${NODE_IMAGE}
# The platform's version (packages/server/package.json; packages/server/test/version.test.ts keeps them equal).
ARG MUSE_VERSION=0.1.0
LABEL org.opencontainers.image.title="muse" \
      org.opencontainers.image.description="Muse platform server (muse-server)" \
      org.opencontainers.image.version="${MUSE_VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production \
    # A read-only root filesystem: anything that wants a home or a temp dir gets /tmp (an emptyDir in the chart).
    HOME=/tmp \
    MUSE_DATA_DIR=/tmp/muse \
    # Every workspace package exports its compiled output under the `compiled` condition and its
    # sources otherwise, so development needs no flag and no build; every `node` here names it.
    # A young generation of 2 MB semi-spaces instead of V8's default (up to 64 MB on a large
    # host) and two malloc arenas; --expose-gc lets an API process collect its start's garbage
    # once, before it listens (packages/server/src/commands/api.ts). bench/memory.ts and the
    # README's "Memory" for the figures.
    NODE_OPTIONS="--conditions=compiled --max-semi-space-size=2 --expose-gc" \
    MALLOC_ARENA_MAX=2 \
    # Workers load the workflow bundles written below instead of bundling at every pod's start.
    MUSE_WORKFLOW_BUNDLE_DIR=/app/workflow-bundles
WORKDIR /app
COPY --from=production /app ./
COPY --from=build /app/packages ./packages
COPY --from=build /app/temporal ./temporal
# `kubectl exec … -- muse-server <command>` in any pod.
RUN ln -s /app/packages/server/dist/src/main.js /usr/local/bin/muse-server
# The workflow code bundled once, here, rather than by each worker at start (seconds of webpack):
# of the compiled workflows, as NODE_OPTIONS names the `compiled` condition. Written as root at
# build time, read by uid 1000 from the read-only root at run time.
RUN node /app/packages/server/dist/src/main.js bundle-workflows /app/workflow-bundles
# The base's unprivileged `node` user, numeric so runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8080 8081 9464 9465 9466 9467
ENTRYPOINT ["node", "/app/packages/server/dist/src/main.js"]
CMD ["--help"]
