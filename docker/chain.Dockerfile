# A local Hardhat JSON-RPC node (chainId 31337) with the project's contracts compiled in.
FROM node:20-bookworm-slim

WORKDIR /app

# Dependencies first, so that a source change does not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

COPY . .
RUN npx hardhat compile

EXPOSE 8545
CMD ["npx", "hardhat", "node", "--hostname", "0.0.0.0", "--port", "8545"]
