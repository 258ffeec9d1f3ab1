# PostgreSQL 15 from Debian's packages on the same base (pg_trgm ships with it). pgvector is not in
# Debian 12's archive: without it the 1:N face search is an exact scan (docs/duplicates.md); on a
# distribution that packages it (Debian 13: postgresql-17-pgvector) add it for the HNSW index.
FROM openkyc-base:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && install -d -o postgres -g postgres -m 700 /var/lib/postgresql/data \
 && install -d -o postgres -g postgres -m 2775 /var/run/postgresql
# The data volume starts as this (postgres-owned) directory; the socket directory is the server's.
USER postgres
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
# First start: an empty cluster with the given password; later starts reuse the volume.
CMD ["bash", "-c", "if [ ! -s \"$PGDATA/PG_VERSION\" ]; then initdb -D \"$PGDATA\" -U postgres --auth-local=trust --auth-host=scram-sha-256 --pwfile=<(printf %s \"$POSTGRES_PASSWORD\") && echo \"host all all 0.0.0.0/0 scram-sha-256\" >> \"$PGDATA/pg_hba.conf\"; fi; exec postgres -D \"$PGDATA\" -c listen_addresses='*'"]
