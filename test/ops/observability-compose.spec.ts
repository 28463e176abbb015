import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { loadConfig } from "../../src/config/app-config";
import { type ComposeService, environmentOf, readComposeFile, service } from "./compose-file";
import { ALERTS_FILE, alertRules, DASHBOARD_FILE, dashboardQueries, PROMETHEUS_CONFIG_FILE, readYaml, ROOT } from "./observability-files";
import { promtool } from "./promtool";

const COMPOSE_FILE = join(ROOT, "docker-compose.yml");
const PROFILE = "observability";
const compose = readComposeFile(COMPOSE_FILE);
const prometheus = service(compose, "prometheus");
const grafana = service(compose, "grafana");
/** The job of each service Prometheus scrapes: the dashboard and the alerts select these names. */
const JOBS = { api: "ticket-registry-api", worker: "ticket-registry-worker" } as const;

interface PrometheusConfig {
  rule_files: string[];
  scrape_configs: {
    job_name: string;
    scheme?: string;
    metrics_path?: string;
    basic_auth?: { username?: string; password_file?: string };
    static_configs: { targets: string[] }[];
  }[];
}

const config = readYaml<PrometheusConfig>(PROMETHEUS_CONFIG_FILE);

/** Bind mounts of a service as [container path, path in the repository]. */
function bindMounts(svc: ComposeService): [string, string][] {
  return (svc.volumes ?? []).flatMap((mount) => {
    const [source, target] = typeof mount === "string" ? mount.split(":") : [mount.source ?? "", mount.target];
    return source.startsWith("./") ? [[target, join(ROOT, source)] as [string, string]] : [];
  });
}

/** The file of the repository a container sees at `containerPath`, through the service's bind mounts. */
function hostPath(svc: ComposeService, containerPath: string): string | undefined {
  for (const [target, source] of bindMounts(svc)) {
    if (containerPath === target) return source;
    if (containerPath.startsWith(`${target}/`)) return join(source, posix.relative(target, containerPath));
  }
  return undefined;
}

/** Where each Compose secret of the service is mounted, by secret name. */
function secretMounts(svc: ComposeService): Map<string, string> {
  return new Map(
    (svc.secrets ?? []).map((secret) => {
      const { source, target } = typeof secret === "string" ? { source: secret, target: undefined } : secret;
      return [source, target?.startsWith("/") ? target : `/run/secrets/${target ?? source}`];
    }),
  );
}

/** The Compose secret mounted at `path` in the service, with the shell variable it is made from. */
function secretAt(svc: ComposeService, path: string): { name: string; environment: string | undefined } | undefined {
  const name = [...secretMounts(svc)].find(([, target]) => target === path)?.[0];
  return name === undefined ? undefined : { name, environment: compose.secrets?.[name]?.environment };
}

function commandFlag(svc: ComposeService, flag: string): string | undefined {
  const words = typeof svc.command === "string" ? svc.command.split(/\s+/) : (svc.command ?? []);
  return words.find((word) => word.startsWith(`${flag}=`))?.slice(flag.length + 1);
}

describe("docker-compose.yml's observability profile", () => {
  const scratch = mkdtempSync(join(tmpdir(), "observability-compose-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("runs Prometheus and Grafana, from pinned images, only with --profile observability", () => {
    expect(prometheus.profiles).toEqual([PROFILE]);
    expect(grafana.profiles).toEqual([PROFILE]);
    for (const svc of [prometheus, grafana]) expect(svc.image).toMatch(/^[\w./-]+:v?\d+\.\d+\.\d+$/);
  });

  it("gives Prometheus the configuration and the alert rules of ops/prometheus", () => {
    const configFile = commandFlag(prometheus, "--config.file");
    expect(configFile, "prometheus' command names no --config.file").toBeDefined();
    expect(hostPath(prometheus, configFile!)).toBe(PROMETHEUS_CONFIG_FILE);
    expect(config.rule_files.map((file) => hostPath(prometheus, file))).toEqual([ALERTS_FILE]);
  });

  it.each(Object.entries(JOBS))("scrapes the %s service's /metrics on its operations port as the %s job", (name, job) => {
    const env = environmentOf(service(compose, name));
    const scrape = config.scrape_configs.find((candidate) => candidate.job_name === job);
    expect(scrape, `no scrape job ${job}`).toBeDefined();
    // The api serves metrics on OPS_PORT only; a worker on its one port, PORT.
    const { role, port, opsPort } = loadConfig(env).app;
    expect(scrape!.static_configs.flatMap((entry) => entry.targets)).toEqual([`${name}:${role === "worker" ? port : opsPort}`]);
    expect(scrape!.metrics_path ?? "/metrics").toBe("/metrics");
    expect(scrape!.scheme ?? "http", "the local stack serves plain HTTP unless TLS_CERT_FILE is set").toBe(env.TLS_CERT_FILE ? "https" : "http");
  });

  it("scrapes with the service's admin credential, the password from a Compose secret made of the shell's ADMIN_PASSWORD", () => {
    const password = "a-long-dashboard-password";
    const withPassword = readComposeFile(COMPOSE_FILE, { ADMIN_PASSWORD: password });
    for (const [name, job] of Object.entries(JOBS)) {
      const auth = config.scrape_configs.find((candidate) => candidate.job_name === job)!.basic_auth;
      const admin = loadConfig(environmentOf(service(withPassword, name))).admin;
      expect(auth?.username, job).toBe(admin.username);
      const secret = secretAt(prometheus, auth?.password_file ?? "");
      expect(secret, `${job}'s password_file is no secret mounted in prometheus`).toBeDefined();
      expect(secret!.environment).toBe("ADMIN_PASSWORD");
      expect(admin.password).toBe(password);
    }
  });

  it("passes promtool check config, with the files Compose mounts", async () => {
    const passwordFile = join(scratch, "admin-password");
    writeFileSync(passwordFile, "a-long-dashboard-password");
    const local = {
      ...config,
      rule_files: config.rule_files.map((file) => hostPath(prometheus, file)),
      scrape_configs: config.scrape_configs.map((scrape) => ({ ...scrape, basic_auth: { ...scrape.basic_auth, password_file: passwordFile } })),
    };
    const file = join(scratch, "prometheus.yml");
    writeFileSync(file, JSON.stringify(local));
    const run = await promtool(["check", "config", file]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`SUCCESS: ${alertRules().length} rules found`);
  });

  it("has the dashboard and the alerts select the scrape jobs by a pattern that matches both", () => {
    const patterns = [...dashboardQueries().map(({ expr }) => expr), ...alertRules().map(({ expr }) => expr)].flatMap((expr) =>
      [...expr.matchAll(/\bjob=~"([^"]+)"/g)].map((match) => match[1]),
    );
    expect(patterns.length).toBeGreaterThan(0);
    for (const pattern of patterns) for (const job of Object.values(JOBS)) expect(job, pattern).toMatch(new RegExp(`^(?:${pattern})$`));
  });

  describe("Grafana", () => {
    const provisioning = hostPath(grafana, "/etc/grafana/provisioning");
    const provisioned = <T>(kind: string): T[] => {
      const folder = join(provisioning!, kind);
      return readdirSync(folder)
        .filter((file) => /\.ya?ml$/.test(file))
        .map((file) => readYaml<T>(join(folder, file)));
    };

    it("is provisioned from ops/grafana/provisioning", () => {
      expect(provisioning).toBe(join(ROOT, "ops", "grafana", "provisioning"));
    });

    it("takes the Prometheus service as its default data source", () => {
      const sources = provisioned<{ datasources: { type: string; url: string; isDefault?: boolean }[] }>("datasources").flatMap((file) => file.datasources);
      expect(sources).toHaveLength(1);
      const url = new URL(sources[0].url);
      expect(sources[0]).toMatchObject({ type: "prometheus", isDefault: true });
      expect(compose.services[url.hostname], `${url.hostname} is no service`).toBe(prometheus);
      const listen = commandFlag(prometheus, "--web.listen-address") ?? ":9090";
      expect(url.port).toBe(listen.split(":").at(-1));
    });

    it("loads the dashboards from a folder mounted from ops/grafana/dashboards, where the dashboard is", () => {
      const providers = provisioned<{ providers: { type: string; options: { path: string } }[] }>("dashboards").flatMap((file) => file.providers);
      expect(providers).toHaveLength(1);
      expect(providers[0].type).toBe("file");
      const folder = hostPath(grafana, providers[0].options.path);
      expect(folder).toBe(join(ROOT, "ops", "grafana", "dashboards"));
      expect(existsSync(join(folder!, "ticket-registry.json"))).toBe(true);
      expect(join(folder!, "ticket-registry.json")).toBe(DASHBOARD_FILE);
    });

    it("signs its admin in with the service's admin credential", () => {
      const env = environmentOf(readComposeFile(COMPOSE_FILE, { ADMIN_USERNAME: "ops" }).services.grafana);
      expect(env.GF_SECURITY_ADMIN_USER).toBe("ops");
      expect(secretAt(grafana, env.GF_SECURITY_ADMIN_PASSWORD__FILE)?.environment).toBe("ADMIN_PASSWORD");
    });

    it("has a dashboard whose every panel asks the data source its variable chooses", () => {
      const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, "utf8")) as {
        uid: string;
        templating: { list: { name: string; type: string; query: string }[] };
        panels: { id: number; type: string; datasource?: { uid: string } }[];
      };
      expect(dashboard.uid).toBe("ticket-registry");
      expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: "datasource", type: "datasource", query: "prometheus" }));
      const ids = dashboard.panels.map((panel) => panel.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const panel of dashboard.panels.filter((candidate) => candidate.type !== "row"))
        expect(panel.datasource?.uid, String(panel.id)).toBe("${datasource}");
    });
  });
});
