import type { ContractTransactionResponse } from "ethers";

import { UsageError } from "../../../scripts/lib/deployment.js";
import { collectionUri, publicBaseUrlProblem, tokenBaseUri } from "../../../src/common/public-urls.js";
import { confirm, connectRegistry, reportingUsageErrors, requireAdmin } from "./registry.js";

interface SetUrisArgs {
  registry?: string;
  publicBaseUrl?: string;
  baseUri?: string;
  contractUri?: string;
}

type UriChange = [label: string, current: string, next: string | undefined, send: (uri: string) => Promise<ContractTransactionResponse>];

/** The base URI and contract URI a registry:set-uris call asks for: explicit ones win over those of --public-base-url. */
function wantedUris({ publicBaseUrl, baseUri, contractUri }: SetUrisArgs): { baseURI?: string; contractURI?: string } {
  if (publicBaseUrl === undefined && baseUri === undefined && contractUri === undefined) {
    throw new UsageError("Give --public-base-url (the service's public address), or --base-uri and/or --contract-uri");
  }
  if (publicBaseUrl !== undefined) {
    const problem = publicBaseUrlProblem(publicBaseUrl);
    if (problem) throw new UsageError(`--public-base-url: ${problem}`);
  }
  return {
    baseURI: baseUri ?? (publicBaseUrl === undefined ? undefined : tokenBaseUri(publicBaseUrl)),
    contractURI: contractUri ?? (publicBaseUrl === undefined ? undefined : collectionUri(publicBaseUrl)),
  };
}

export default reportingUsageErrors(async (args: SetUrisArgs, hre) => {
  const wanted = wantedUris(args);
  const connected = await connectRegistry(hre, args.registry);
  const { registry, address } = connected;
  const changes: UriChange[] = [
    ["base URI", await registry.baseURI(), wanted.baseURI, (uri) => registry.setBaseURI(uri)],
    ["contract URI", await registry.contractURI(), wanted.contractURI, (uri) => registry.setContractURI(uri)],
  ];
  const due = changes.filter(([, current, next]) => next !== undefined && next !== current);
  if (due.length > 0) await requireAdmin(connected);
  for (const [label, current, next, send] of changes) {
    if (next === undefined) continue;
    if (next === current) {
      console.log(`The ${label} of ${address} is already "${current}"; nothing sent`);
      continue;
    }
    const result = await confirm(await send(next));
    console.log(`Set the ${label} of ${address} to "${next}" (${result})`);
  }
});
