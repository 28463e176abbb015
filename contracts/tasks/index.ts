/**
 * The operator's tasks on a deployed TicketRegistry: `npm run hardhat -- registry:<task> --network <name>`
 * (or `npx hardhat registry:<task> …` inside contracts/). Each action is a module of its own, loaded only
 * when its task runs, so that loading the config stays cheap.
 */
import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

/** Every task but registry:verify takes the registry's address, defaulting to the recorded one. */
function registryTask(name: string, description: string) {
  return task(name, description).addOption({
    name: "registry",
    description: "Registry address (default: the one recorded in <DEPLOYMENTS_DIR>/<network>.json)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  });
}

export const grantOperatorTask = registryTask("registry:grant-operator", "Grants OPERATOR_ROLE to an account")
  .addOption({ name: "account", description: "Address to grant OPERATOR_ROLE to", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .setAction(() => import("./actions/grant-operator.js"))
  .build();

export const revokeOperatorTask = registryTask("registry:revoke-operator", "Revokes OPERATOR_ROLE from an account")
  .addOption({ name: "account", description: "Address to revoke OPERATOR_ROLE from", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .setAction(() => import("./actions/revoke-operator.js"))
  .build();

export const pauseTask = registryTask("registry:pause", "Stops every operator write until registry:unpause")
  .setAction(() => import("./actions/pause.js"))
  .build();

export const unpauseTask = registryTask("registry:unpause", "Lets operators write again")
  .setAction(() => import("./actions/unpause.js"))
  .build();

export const setUrisTask = registryTask(
  "registry:set-uris",
  "Points the tokens' metadata (base URI) and the collection's (contractURI, ERC-7572) at the service",
)
  .addOption({
    name: "publicBaseUrl",
    description: "The service's PUBLIC_BASE_URL: base URI {url}/tokens/, contract URI {url}/tokens/collection",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "baseUri",
    description: "The tokenURI prefix, instead of the one --public-base-url gives",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "contractUri",
    description: "The collection metadata URI, instead of the one --public-base-url gives",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .setAction(() => import("./actions/set-uris.js"))
  .build();

export const statusTask = registryTask("registry:status", "Prints the registry's state and the roles of the given accounts")
  .addOption({
    name: "accounts",
    description: "Comma-separated addresses to check for OPERATOR_ROLE",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .setAction(() => import("./actions/status.js"))
  .build();

export const verifyTask = task(
  "registry:verify",
  "Verifies the registry recorded in <DEPLOYMENTS_DIR>/<network>.json on Sourcify and Etherscan (v2), from the sources and settings of its build",
)
  .addFlag({ name: "force", description: "Submit again even where the explorer already shows the contract as verified" })
  .setAction(() => import("./actions/verify.js"))
  .build();

export const registryTasks = [grantOperatorTask, revokeOperatorTask, pauseTask, unpauseTask, setUrisTask, statusTask, verifyTask];
