# model-platform as a container image: the same image runs API nodes (`serve --no-workers`),
# task workers (`worker --port 9464`) or everything in one process (`serve`, the default).
# See docs/load-balancer.md and deploy/compose.yaml for a fleet.

# ---- build stage: dependencies, with the tools native modules compile with (better-sqlite3) ----
FROM node:20-bookworm-slim AS dependencies
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# .npmrc skips onnxruntime-node's GPU download (the CPU binaries ship in the package).
COPY package.json package-lock.json .npmrc ./
# esbuild is a runtime dependency (the sources run as TypeScript, bin/typescript-hooks.mjs), so dev dependencies stay out.
RUN npm ci --omit=dev && npm cache clean --force

# ---- runtime stage: no compilers, only what the engines run on ----
FROM node:20-bookworm-slim
# chromium: the reader's rendering and the slides agent; ffmpeg: audio and video frames;
# fonts: Latin (DejaVu, Liberation) and CJK (WenQuanYi Micro Hei) text in rendered pages and PDFs;
# tini: forwards SIGTERM so in-flight requests finish and running tasks go back to the queue.
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium ffmpeg fonts-dejavu-core fonts-liberation fonts-wqy-microhei ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    MODEL_PLATFORM_DATA_DIR=/data
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY bin ./bin
COPY src ./src
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
