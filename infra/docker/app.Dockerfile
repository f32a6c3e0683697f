# upgradelab/app: the API (serving the built UI) and the Celery worker, one image.
# Build context: the repository root, after `npm run build` made frontend/dist (`make up` does) and
# infra/docker/wheels.sh made build/wheelhouse/{deps,app}: the image is assembled from those, offline.
# BASE_IMAGE: upgradelab/debian:bookworm is made locally by infra/docker/images.sh (no registry
# needed); on a Docker host with a registry, debian:bookworm works the same.
ARG BASE_IMAGE=upgradelab/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update -q \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3 python3-venv \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/venv
# The dependencies first, in a layer of their own: their wheels are the same bytes on every
# wheels.sh run, so the builder's cache keeps this layer (about 100 s of pip on a 2-core host)
# until backend/pyproject.toml changes; a change to the backend's code rebuilds only the next one.
COPY build/wheelhouse/deps /wheels
RUN /opt/venv/bin/pip install --no-cache-dir -q --no-index --find-links /wheels /wheels/*.whl \
 && rm -rf /wheels
# The backend's own wheel: its dependencies resolve against the layer above (no index to fall back on,
# so a dependency missing there fails the build).
COPY build/wheelhouse/app /wheels
RUN /opt/venv/bin/pip install --no-cache-dir -q --no-index --find-links /wheels 'upgradelab[mariadb]' \
 && rm -rf /wheels
COPY frontend/dist /app/frontend/dist
ENV PATH=/opt/venv/bin:$PATH \
    UPGRADELAB_FRONTEND_DIST=/app/frontend/dist \
    UPGRADELAB_STATE_DIR=/var/lib/upgradelab/state
WORKDIR /app
CMD ["upgradelab", "serve"]
