import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const CLIENT_DIR = __dirname;
const TSC = require.resolve("typescript/bin/tsc");

/**
 * The two builds the package ships, each marked with the module system Node must load it as
 * (client/package.json has no "type": its "exports" pick a build by `import` or `require`).
 */
const BUILDS = [
  { tsconfig: "tsconfig.esm.json", outDir: "dist/esm", type: "module" },
  { tsconfig: "tsconfig.cjs.json", outDir: "dist/cjs", type: "commonjs" },
] as const;

/** Compiles client/src into dist/esm and dist/cjs, types included. */
export function buildClient(): void {
  rmSync(join(CLIENT_DIR, "dist"), { recursive: true, force: true });
  for (const build of BUILDS) {
    execFileSync(process.execPath, [TSC, "-p", join(CLIENT_DIR, build.tsconfig)], { stdio: "inherit" });
    writeFileSync(join(CLIENT_DIR, build.outDir, "package.json"), `${JSON.stringify({ type: build.type })}\n`);
  }
}

/** Builds the package and packs it with npm into `destination`; returns the tarball's path. */
export function packClient(destination: string): string {
  buildClient();
  mkdirSync(destination, { recursive: true });
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", destination], { cwd: CLIENT_DIR, encoding: "utf8" });
  const [packed] = JSON.parse(output) as { filename: string }[];
  return join(destination, packed.filename);
}
