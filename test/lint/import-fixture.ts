import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

import { cruise, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

export const ROOT = resolve(__dirname, "..", "..");

export interface Violation {
  rule: string;
  from: string;
  to: string;
}

/** Cruises `roots` under `baseDir` with the configuration file `config` there, as `npm run lint:deps` does. */
export async function violations(baseDir: string, config: string, roots: string[]): Promise<Violation[]> {
  const options = await extractDepcruiseOptions(join(baseDir, config));
  const tsConfig = extractTSConfig(join(baseDir, "tsconfig.json"));
  const { output } = await cruise(roots, { ...options, baseDir }, {}, { tsConfig });
  const result = output as ICruiseResult;
  return result.summary.violations
    .map(({ rule, from, to }) => ({ rule: rule.name, from, to }))
    .sort((a, b) => `${a.rule} ${a.from} ${a.to}`.localeCompare(`${b.rule} ${b.from} ${b.to}`));
}

/**
 * A fixture tree in a fresh temporary directory (outside the repository, so nothing is written into
 * it while other test files run): each file (path relative to the root -> its imports) exports one
 * constant built from what it imports; the repository's `configs` are copied next to it.
 */
export function writeImportFixture(files: Record<string, string[]>, configs: string[], include: string[]): string {
  const fixture = mkdtempSync(join(tmpdir(), "imports-"));
  for (const config of configs) copyFileSync(join(ROOT, config), join(fixture, config));
  symlinkSync(join(ROOT, "node_modules"), join(fixture, "node_modules"), "dir");
  const compilerOptions = { module: "nodenext", moduleResolution: "nodenext", strict: true, skipLibCheck: true, noEmit: true };
  writeFileSync(join(fixture, "tsconfig.json"), JSON.stringify({ compilerOptions, include }));
  for (const [file, imports] of Object.entries(files)) {
    mkdirSync(dirname(join(fixture, file)), { recursive: true });
    const lines = imports.map((specifier, i) => `import * as imported${i} from "${specifier}";`);
    const used = imports.map((_, i) => `imported${i}`).join(", ");
    writeFileSync(join(fixture, file), `${lines.join("\n")}\nexport const value = [${used}];\n`);
  }
  return fixture;
}
