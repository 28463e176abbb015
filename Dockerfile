# The service's image: one image, both roles (APP_ROLE=api or worker).
#
#   docker build -t ticket-registry-service .
#   docker run --env-file service.env ticket-registry-service                  # the service
#   docker run --env-file service.env ticket-registry-service \
#     node dist/src/cli/main.js org list                                        # the ops CLI
#   docker run --env-file service.env ticket-registry-service \
#     node dist/src/database/migrate.js                                         # migrations

# Build: every dependency, the contract's types (typechain-types/) and `nest build` into dist/.
FROM node:24-bookworm-slim AS build

WORKDIR /app

# Dependencies first, so that a source change does not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

COPY . .
RUN npm run build

# Runtime: production dependencies and the compiled service only; no compiler, no Hardhat, no sources.
FROM node:24-bookworm-slim AS runtime

ENV NODE_ENV=production
WORKDIR /app

# No install scripts: nothing the service loads needs one (the only ones are optional native builds
# with pure JavaScript fallbacks and install-time analytics). No optional packages either: TypeScript
# and ts-node are optional peers of runtime packages and would otherwise come along; the rest
# (msgpackr's native build, pg's Cloudflare socket) have fallbacks or serve other platforms.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force \
  && test ! -e node_modules/typescript && test ! -e node_modules/ts-node

COPY --from=build /app/dist ./dist

# Owned by root and run as node: the service cannot rewrite its own code.
USER node

# Inside a container the network namespace is the boundary: listen on every interface of it (the
# service's own default is 127.0.0.1). PORT is the API (a worker's operations endpoints), OPS_PORT the
# api's operations endpoints (metrics, queue dashboard).
ENV HOST=0.0.0.0
EXPOSE 3000 9464

# Liveness only: readiness (/health/ready) depends on PostgreSQL, Redis and the chain, and a
# container must not be restarted because one of them is away. Both roles serve it on PORT, over
# HTTPS when TLS_CERT_FILE is set (the certificate names the public host, not 127.0.0.1: unchecked).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "require(process.env.TLS_CERT_FILE ? 'node:https' : 'node:http').get({ host: '127.0.0.1', port: process.env.PORT || 3000, path: '/health/live', rejectUnauthorized: false, timeout: 4000 }, (response) => process.exit(response.statusCode >= 200 && response.statusCode < 300 ? 0 : 1)).on('error', () => process.exit(1)).on('timeout', () => process.exit(1))"]

CMD ["node", "dist/src/main.js"]
