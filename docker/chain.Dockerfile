# A local Hardhat JSON-RPC node (chainId 31337) with the TicketRegistry deployed into it at start by
# contracts/scripts/deploy.ts (see docker/chain-node.ts). The chain lives in memory: every start is a fresh
# chain, and the deployment lands at the same address each time.
FROM node:24-bookworm-slim

WORKDIR /app
RUN chown node:node /app
USER node

# Dependencies first, so that a source change does not reinstall them. Hardhat and the deploy
# script need the development dependencies.
COPY --chown=node:node package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# The whole project: the entrypoint loads docker/ and the stack library in scripts/stack, the deploy
# script and the contracts (test/ops/docker-compose.spec.ts checks .dockerignore leaves none of them out).
COPY --chown=node:node . .
RUN npm run compile

EXPOSE 8545
# node runs as PID 1 and handles SIGTERM itself.
CMD ["node", "--require", "@swc-node/register", "docker/chain-entrypoint.ts"]
