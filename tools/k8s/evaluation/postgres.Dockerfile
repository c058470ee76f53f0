# The evaluation install's Postgres (charts/muse `evaluation.postgres.image`) built without a
# registry: Debian bookworm's PostgreSQL 15 on the suite's base image (tools/k8s/base-image.sh).
# Its entrypoint keeps the official images' contract that the chart relies on: POSTGRES_USER,
# POSTGRES_PASSWORD, POSTGRES_DB and PGDATA initialise an empty volume; uid/gid 999.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
# The user before the package, so the package's postinst keeps uid 999 (the chart's
# runAsUser); and no `main` cluster: the entrypoint makes the one in the volume.
RUN groupadd -g 999 postgres \
  && useradd -u 999 -g 999 -d /var/lib/postgresql -s /bin/sh postgres \
  && mkdir -p /etc/postgresql-common/createcluster.d \
  && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/no-main-cluster.conf \
  && apt-get update -qq \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null \
  && rm -rf /var/lib/apt/lists/* /usr/share/doc /usr/share/man
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
USER 999:999
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
