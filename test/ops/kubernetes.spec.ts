import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { beforeAll, describe, expect, it } from "vitest";

import { configVariableNames, loadConfig } from "../../src/config/app-config";
import { readStages, stageEnvironment } from "./compose-dockerfile";
import { type K8sObject, renderKustomization } from "./kustomize";
import { readYaml, ROOT } from "./observability-files";

const K8S = join(ROOT, "ops", "k8s");
const OVERLAY = join(K8S, "overlays", "production");

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}

interface Probe {
  httpGet?: { path: string; port: string | number };
}

interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: Container[]; restartPolicy?: string };
}

/**
 * Variables whose values are credentials (passwords in URLs, keys, an RPC provider's API key):
 * they come from a Secret, never from the manifests or a ConfigMap.
 */
const CREDENTIALS = [
  "DATABASE_URL",
  "REDIS_URL",
  "CHAIN_RPC_URL",
  "CHAIN_RPC_URLS",
  "CHAIN_RPC_HEADERS",
  "WEBHOOK_SECRETS_KEY",
  "ADMIN_PASSWORD",
  "SIGNER_PRIVATE_KEYS",
  "DEV_API_KEY",
  "DEV_WEBHOOK_SECRET",
];

/** Values for the Secrets an operator creates (docs/operators/kubernetes.md), valid for the service's configuration check. */
const SECRET_VALUES: Record<string, Record<string, string>> = {
  "ticket-registry": {
    DATABASE_URL: "postgres://ticket_registry:Db0Secret@postgres.internal:5432/ticket_registry",
    REDIS_URL: "redis://:Redis0Secret@redis.internal:6379",
    CHAIN_RPC_URL: "https://polygon.rpc.example/v1/provider-api-key",
    WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64"),
    ADMIN_PASSWORD: "a-long-admin-password",
  },
  "ticket-registry-signer": { SIGNER_PRIVATE_KEYS: `0x${"59".repeat(32)}` },
};

/** What the image sets itself (the Dockerfile's final stage ENV), under the pod's variables. */
const IMAGE_ENV = stageEnvironment(readStages(join(ROOT, "Dockerfile")).at(-1)!);

const openapi = JSON.parse(readFileSync(join(ROOT, "openapi.json"), "utf8")) as {
  paths: Record<string, Record<string, { security?: unknown[] }>>;
};

/** Lookups in one rendering, and the environment a container's process sees in it. */
class Rendered {
  constructor(readonly objects: K8sObject[]) {}

  find(kind: string, name: string): K8sObject {
    const found = this.objects.find((object) => object.kind === kind && object.metadata.name === name);
    if (!found) throw new Error(`no ${kind} ${name} in the rendering`);
    return found;
  }

  workloads(): K8sObject[] {
    return this.objects.filter((object) => ["Deployment", "Job"].includes(object.kind));
  }

  containers(): { object: K8sObject; container: Container }[] {
    return this.workloads().flatMap((object) => template(object).spec.containers.map((container) => ({ object, container })));
  }

  configMap(name: string): Record<string, string> {
    return this.find("ConfigMap", name).data ?? {};
  }

  /** The environment the container's process sees, Secrets filled in with SECRET_VALUES. */
  environment(container: Container): Record<string, string> {
    const env: Record<string, string> = { ...IMAGE_ENV };
    for (const source of container.envFrom ?? []) {
      if (source.secretRef) throw new Error(`${container.name} takes a whole Secret (${source.secretRef.name}): name each variable instead`);
      Object.assign(env, this.configMap(source.configMapRef!.name));
    }
    for (const variable of container.env ?? []) {
      const { secretKeyRef, configMapKeyRef } = variable.valueFrom ?? {};
      if (secretKeyRef) env[variable.name] = SECRET_VALUES[secretKeyRef.name]?.[secretKeyRef.key];
      else if (configMapKeyRef) env[variable.name] = this.configMap(configMapKeyRef.name)[configMapKeyRef.key];
      else env[variable.name] = variable.value ?? "";
    }
    return env;
  }

  /** The variables the manifests give the container, with where each comes from. */
  variables(container: Container): { name: string; from: "secret" | "configMap" | "literal" }[] {
    const fromConfigMaps = (container.envFrom ?? []).flatMap((source) => Object.keys(this.configMap(source.configMapRef?.name ?? "")));
    return [
      ...fromConfigMaps.map((name) => ({ name, from: "configMap" as const })),
      ...(container.env ?? []).map((variable) => ({
        name: variable.name,
        from: variable.valueFrom?.secretKeyRef ? ("secret" as const) : variable.valueFrom?.configMapKeyRef ? ("configMap" as const) : ("literal" as const),
      })),
    ];
  }
}

/** Each kustomization rendered once for the file. */
const renderings = new Map<string, Promise<K8sObject[]>>();
function rendering(dir: string): Promise<K8sObject[]> {
  if (!renderings.has(dir)) renderings.set(dir, renderKustomization(dir));
  return renderings.get(dir)!;
}

function template(object: K8sObject): PodTemplate {
  return (object.spec as { template: PodTemplate }).template;
}

describe.each([
  ["the production overlay", OVERLAY],
  ["the base", join(K8S, "base")],
])("Kubernetes manifests: %s, rendered by kustomize", (_, dir) => {
  let objects: K8sObject[];
  let rendered: Rendered;

  beforeAll(async () => {
    objects = await rendering(dir);
    rendered = new Rendered(objects);
  });

  it("runs an api and a worker Deployment, a migration Job, PodDisruptionBudgets and no Secret", () => {
    expect(objects.filter((object) => object.kind === "Deployment").map((object) => object.metadata.name)).toEqual(
      expect.arrayContaining(["ticket-registry-api", "ticket-registry-worker"]),
    );
    expect(objects.filter((object) => object.kind === "Job").map((object) => object.metadata.name)).toEqual(["ticket-registry-migrate"]);
    expect(objects.filter((object) => object.kind === "PodDisruptionBudget").length).toBeGreaterThan(0);
    expect(objects.filter((object) => object.kind === "Secret")).toEqual([]);
  });

  it("sets only variables the service reads", () => {
    const known = new Set(configVariableNames());
    const unknown = rendered.containers().flatMap(({ object, container }) =>
      rendered
        .variables(container)
        .filter(({ name }) => !known.has(name))
        .map(({ name }) => `${object.metadata.name}/${container.name}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it("takes every credential from a Secret by name and key, never from the manifests or a ConfigMap", () => {
    for (const { object, container } of rendered.containers()) {
      for (const { name, from } of rendered.variables(container)) {
        if (CREDENTIALS.includes(name)) expect(from, `${object.metadata.name}: ${name}`).toBe("secret");
      }
      for (const variable of container.env ?? []) {
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref) expect(Object.keys(SECRET_VALUES[ref.name] ?? {}), `${variable.name} from Secret ${ref.name}`).toContain(ref.key);
      }
    }
  });

  it("gives signer keys to the worker only", () => {
    for (const { object, container } of rendered.containers()) {
      const signs = rendered.variables(container).some(({ name }) => name === "SIGNER_PRIVATE_KEYS");
      expect(signs, object.metadata.name).toBe(object.metadata.name === "ticket-registry-worker");
    }
  });

  it("migrates in the Job with the compiled migration script", () => {
    const job = template(rendered.find("Job", "ticket-registry-migrate"));
    expect(job.spec.restartPolicy).toBe("Never");
    const [container] = job.spec.containers;
    const [program, script, ...rest] = [...(container.command ?? []), ...(container.args ?? [])];
    expect([program, rest]).toEqual(["node", []]);
    // nest build puts src/X.ts at dist/src/X.js (the Dockerfile's test checks the mapping).
    expect(script).toMatch(/^dist\/src\/.+\.js$/);
    expect(existsSync(join(ROOT, script.replace(/^dist\//, "").replace(/\.js$/, ".ts"))), script).toBe(true);
    expect(script).toBe("dist/src/database/migrate.js");
  });

  it("labels the ConfigMap and the Job so that they can be applied first, alone", () => {
    const first = objects.filter((object) => ["config", "migration"].includes(object.metadata.labels?.["app.kubernetes.io/component"] ?? ""));
    expect(first.map((object) => object.kind).sort()).toEqual(["ConfigMap", "Job"]);
  });

  it("probes only paths the service serves to anybody (GET, no API key), on the container's PORT", () => {
    for (const object of objects.filter((candidate) => candidate.kind === "Deployment")) {
      const [container] = template(object).spec.containers;
      const port = Number(rendered.environment(container).PORT ?? loadConfig({}).app.port);
      const probes = { startupProbe: container.startupProbe, livenessProbe: container.livenessProbe, readinessProbe: container.readinessProbe };
      expect(probes.livenessProbe?.httpGet?.path, object.metadata.name).toBe("/health/live");
      expect(probes.readinessProbe?.httpGet?.path, object.metadata.name).toBe("/health/ready");
      for (const [kind, probe] of Object.entries(probes)) {
        if (!probe) continue;
        const where = `${object.metadata.name} ${kind}`;
        const get = openapi.paths[probe.httpGet!.path]?.get;
        expect(get, `${where}: the service has no GET ${probe.httpGet!.path}`).toBeDefined();
        expect(get.security ?? [], `${where}: ${probe.httpGet!.path} wants a credential`).toEqual([]);
        const named = container.ports?.find((candidate) => candidate.name === probe.httpGet!.port || candidate.containerPort === probe.httpGet!.port);
        expect(named?.containerPort, where).toBe(port);
      }
    }
  });

  it("keeps one pod of each Deployment through a disruption, its budget selecting its pods", () => {
    for (const name of ["ticket-registry-api", "ticket-registry-worker"]) {
      const deployment = rendered.find("Deployment", name);
      const budget = objects.find(
        (object) =>
          object.kind === "PodDisruptionBudget" &&
          Object.entries((object.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels).every(
            ([label, value]) => template(deployment).metadata.labels[label] === value,
          ),
      );
      expect(budget, `no PodDisruptionBudget selects ${name}'s pods`).toBeDefined();
      const { maxUnavailable, minAvailable } = budget!.spec as { maxUnavailable?: number; minAvailable?: number };
      const replicas = (deployment.spec as { replicas: number }).replicas;
      expect(replicas, name).toBeGreaterThanOrEqual(2);
      expect(maxUnavailable !== undefined ? replicas - maxUnavailable : (minAvailable ?? 0), name).toBeGreaterThanOrEqual(1);
    }
  });

  it("requests CPU and memory and limits memory for every container", () => {
    for (const { object, container } of rendered.containers()) {
      expect(Object.keys(container.resources?.requests ?? {}).sort(), object.metadata.name).toEqual(["cpu", "memory"]);
      expect(container.resources?.limits?.memory, object.metadata.name).toBeDefined();
    }
  });
});

// The base leaves the chain settings (REGISTRY_ADDRESS, ...) to an overlay: only an overlay is a complete configuration.
describe("the production overlay", () => {
  let rendered: Rendered;

  beforeAll(async () => {
    rendered = new Rendered(await rendering(OVERLAY));
  });

  it.each([
    ["ticket-registry-api", "api"],
    ["ticket-registry-worker", "worker"],
  ])("gives %s a configuration that passes the service's production check, in its role, migrating nothing at start", (name, role) => {
    const [container] = template(rendered.find("Deployment", name)).spec.containers;
    const config = loadConfig(rendered.environment(container));
    expect(config.app).toMatchObject({ mode: "production", role });
    expect(config.database.migrateAtBoot).toBe(false);
  });

  it.each([
    ["ticket-registry-api", "api"],
    ["ticket-registry-worker", "worker"],
  ])("has %s listen on every interface of its pod, its operations endpoints on a named container port, none behind the ingress", (name) => {
    const [container] = template(rendered.find("Deployment", name)).spec.containers;
    const { app } = loadConfig(rendered.environment(container));
    expect(app.host).toBe("0.0.0.0");
    const operationsPort = app.role === "worker" ? app.port : app.opsPort;
    const named = container.ports?.find((candidate) => candidate.containerPort === operationsPort);
    expect(named, `${name} names no container port ${operationsPort}`).toBeDefined();
    if (app.role === "api") {
      expect(app.opsPort).not.toBe(app.port);
      const service = rendered.find("Service", name);
      const ports = (service.spec as { ports: { name: string; targetPort: string | number }[] }).ports;
      expect(ports.map((port) => port.targetPort).sort()).toEqual(["http", named!.name].sort());
    }
  });

  it("gives the migration Job a configuration that passes the production check", () => {
    const [container] = template(rendered.find("Job", "ticket-registry-migrate")).spec.containers;
    expect(loadConfig(rendered.environment(container)).app.mode).toBe("production");
  });

  it("replaces the image's placeholder name with a registry and a tag", () => {
    const images = rendered.containers().map(({ container }) => container.image);
    expect(images.length).toBe(3);
    for (const image of images) expect(image).toMatch(/^[\w.-]+\/[\w./-]+:[\w.-]+$/);
  });

  it("generates no Secret in any kustomization", () => {
    const kustomizations = [join(K8S, "base"), OVERLAY].map((dir) => readYaml<Record<string, unknown>>(join(dir, "kustomization.yaml")));
    for (const kustomization of kustomizations) expect(kustomization.secretGenerator).toBeUndefined();
    const files = [join(K8S, "base"), OVERLAY].flatMap((dir) => readdirSync(dir).map((file) => readFileSync(join(dir, file), "utf8")));
    expect(files.filter((text) => /^kind:\s*Secret\b/m.test(text))).toEqual([]);
  });
});
