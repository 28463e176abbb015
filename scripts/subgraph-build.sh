#!/usr/bin/env bash
# npm run subgraph:build [-- <network>]: graph-cli's codegen and build of subgraph/, offline. The ABI is the
# compiled contract's artifact (npm run compile writes it).
#
# With a network of subgraph/networks.json (localhost, polygon-amoy, matic), the build is of
# subgraph/subgraph.<network>.yaml: a copy of subgraph.yaml with that network's address and start block, which
# `graph build --network` writes into the manifest it is given (subgraph.yaml itself stays as committed);
# `graph deploy` then takes that copy.
set -euo pipefail
# graph-cli would otherwise spawn a background look-up of its latest version on the npm registry.
export GRAPH_SKIP_NEW_VERSION_CHECK=true
cd "$(dirname "$0")/../subgraph"
artifact=../contracts/artifacts/src/TicketRegistry.sol/TicketRegistry.json
[ -f "$artifact" ] || { echo "subgraph:build needs $artifact: run npm run compile first" >&2; exit 1; }
graph=../node_modules/.bin/graph

manifest=subgraph.yaml
network=()
if [ $# -gt 0 ]; then
  node -e '
    const [name] = process.argv.slice(1);
    const entry = require("./networks.json")[name]?.TicketRegistry;
    if (!entry) throw new Error(`networks.json has no network ${name}`);
    if (/^0x0{40}$/.test(entry.address)) throw new Error(`networks.json: no registry address for ${name} yet (npm run subgraph:networks)`);
  ' "$1"
  manifest="subgraph.$1.yaml"
  cp subgraph.yaml "$manifest"
  network=(--network "$1")
fi
"$graph" codegen subgraph.yaml --output-dir generated --skip-migrations
"$graph" build "$manifest" --output-dir build --skip-migrations "${network[@]}"
