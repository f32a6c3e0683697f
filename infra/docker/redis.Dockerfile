# upgradelab/redis: Debian's redis-server, the Celery broker of the compose stack.
ARG BASE_IMAGE=upgradelab/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -q \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends redis-server \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
USER redis
CMD ["redis-server", "--bind", "127.0.0.1", "--port", "6380", "--save", "", "--appendonly", "no"]
