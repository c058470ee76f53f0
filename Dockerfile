# syntax=docker/dockerfile:1
# The Muse platform image: one image, every process (`muse-server content-api | chat-api | worker |
# migrate | operator`). Node runs the TypeScript sources directly, so there is no build stage;
# the first stage only installs the production dependencies.
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
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    # A read-only root filesystem: anything that wants a home or a temp dir gets /tmp (an emptyDir in the chart).
    HOME=/tmp \
    MUSE_DATA_DIR=/tmp/muse
WORKDIR /app
COPY --from=dependencies /app ./
COPY packages ./packages
COPY temporal ./temporal
# The official image's unprivileged `node` user, numeric so runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8080 8081 9464 9465 9466 9467
ENTRYPOINT ["node", "/app/packages/server/src/main.ts"]
CMD ["--help"]
