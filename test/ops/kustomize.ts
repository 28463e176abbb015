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

/** The oldest kustomize whose syntax the kustomizations use: `resources` naming a folder, `replicas`, `options.labels`. */
const MIN_KUSTOMIZE_MAJOR = 4;

function kubectl(args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    execFile("kubectl", args, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === "ENOENT") {
        return fail(
          new Error(`kubectl is not installed: rendering the kustomizations needs kubectl 1.21 or later (kustomize v${MIN_KUSTOMIZE_MAJOR}+ built in)`),
        );
      }
      if (error) return fail(new Error(`kubectl ${args.join(" ")} failed: ${stderr || error.message}`));
      done(stdout);
    });
  });
}

/**
 * `kubectl kustomize dir`: every object the kustomization renders. Fails with a clear message when
 * kubectl is missing or embeds a kustomize older than the syntax used (kubectl 1.20's v2 reads no
 * folder in `resources`).
 */
export async function renderKustomization(dir: string): Promise<K8sObject[]> {
  const version = JSON.parse(await kubectl(["version", "--client", "-o", "json"])) as { kustomizeVersion?: string };
  const major = Number(/^v?(\d+)\./.exec(version.kustomizeVersion ?? "")?.[1] ?? 0);
  if (major < MIN_KUSTOMIZE_MAJOR) {
    throw new Error(
      `kubectl embeds kustomize ${version.kustomizeVersion ?? "v2 or older"}: the kustomizations need v${MIN_KUSTOMIZE_MAJOR} or later (kubectl 1.21+)`,
    );
  }
  const documents = parseAllDocuments(await kubectl(["kustomize", dir]));
  return documents.map((document) => {
    if (document.errors.length > 0) throw new Error(`kubectl kustomize ${dir} printed invalid YAML: ${document.errors[0].message}`);
    return document.toJS() as K8sObject;
  });
}
