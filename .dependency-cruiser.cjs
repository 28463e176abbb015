// @ts-check
/**
 * Layering of src/ (`npm run lint:deps`: depcruise src --config .dependency-cruiser.cjs).
 *
 * A "top-level module" is a folder directly under src/ (src/chain, src/events, ...). The single files at
 * the top of src/ (main.ts, app.module.ts, app.setup.ts, entities.ts, data-source.ts) are composition
 * roots: no rule restricts what they import.
 *
 * The rules hold for every file in a folder, its *.spec.ts files included: a spec in src/common that
 * imports src/events makes src/common depend on src/events just the same.
 *
 * Type-only imports count (tsPreCompilationDeps): they are architectural dependencies even when the
 * compiler erases them.
 */
const fs = require("node:fs");
const path = require("node:path");

/** The feature modules: they may build on the ledger; the ledger, chain and callbacks import none of them. */
const FEATURES = "events|tickets|stream";

/**
 * The order the rules below put the folders in (a folder may import only lower ones among these).
 * Used only to say which edge of a folder cycle is the wrong one; folders not listed are unranked.
 * @type {Record<string, number>}
 */
const LAYER = { common: 0, config: 1, registry: 1, database: 2, ledger: 3, chain: 4, callbacks: 4, events: 5, tickets: 5, stream: 5 };

/**
 * Cycles between top-level folders (src/A imports src/B and src/B, directly or through other folders,
 * imports src/A) are a folder-level property: src/a/x.ts -> src/b/y.ts plus src/b/z.ts -> src/a/w.ts is
 * such a cycle without any module-level cycle in it. dependency-cruiser cannot see it natively: its
 * `circular` is module-level, its folder-scope rules link a folder to the *immediate* folder of each
 * target (src/chain -> src/events/dto, never src/chain -> src/events), and --collapse only regroups the
 * report after the analysis. So this file derives the folder graph itself when it is loaded, from the
 * import specifiers of src/ (TypeScript's own pre-processor, so comments and strings are not mistaken
 * for imports; only relative specifiers can point into src/, as tsconfig.json has no paths or baseUrl),
 * and turns the folder edges that close cycles into forbidden rules, one per edge, named
 * "no-circular-top-level:<from>-to-<to>". dependency-cruiser then reports each import that makes up
 * such an edge, with the cycle in the rule's comment.
 *
 * Which edges: once one folder edge is wrong, every edge into that folder's strongly connected
 * component lies on some cycle, and reporting all of them buries the cause. So, repeatedly, the
 * shortest remaining cycle is taken and one of its edges is reported and set aside, until no cycle is
 * left: an edge that goes up the layers (LAYER) if the cycle has one, else the edge with the fewest
 * imports (the likely wrong direction). The reported edges are enough to break every cycle; with no
 * cycles there is no such rule and nothing to report.
 *
 * @param {string} sourceRoot absolute path of the src folder to derive the rules for
 * @returns {import("dependency-cruiser").IForbiddenRuleType[]}
 */
function topLevelCycleRules(sourceRoot) {
  if (!fs.existsSync(sourceRoot)) return [];
  /** @type {typeof import("typescript")} */
  const ts = require(require.resolve("typescript", { paths: [__dirname, process.cwd()] }));

  /** @param {string} file absolute path @returns {string | null} the top-level folder the file is in, if any */
  const folderOf = (file) => {
    const parts = path.relative(sourceRoot, file).split(path.sep);
    return parts.length > 1 && parts[0] !== ".." ? parts[0] : null;
  };

  /** @type {Map<string, Map<string, Set<string>>>} folder -> folder it imports -> its imports of it ("file -> target") */
  const graph = new Map();
  const entries = /** @type {string[]} */ (fs.readdirSync(sourceRoot, { recursive: true, encoding: "utf8" }));
  for (const entry of entries.sort()) {
    if (!/\.[cm]?tsx?$/.test(entry) || /\.d\.[cm]?ts$/.test(entry)) continue;
    const file = path.join(sourceRoot, entry);
    const from = folderOf(file);
    if (from === null) continue;
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (!specifier.startsWith(".")) continue;
      let target = path.resolve(path.dirname(file), specifier);
      // "../events" is src/events/index.ts: inside src/events, not a file at the top of src.
      if (fs.existsSync(target) && fs.statSync(target).isDirectory()) target = path.join(target, "index");
      const to = folderOf(target);
      if (to === null || to === from) continue;
      const edges = graph.get(from) ?? new Map();
      graph.set(from, edges);
      edges.set(to, (edges.get(to) ?? new Set()).add(`${entry} -> ${path.relative(sourceRoot, target)}`));
    }
  }

  /** @param {string} from @param {string} to @returns {number} */
  const importCount = (from, to) => graph.get(from)?.get(to)?.size ?? 0;
  /** @param {string} from @param {string} to @returns {boolean} */
  const goesUp = (from, to) => Object.hasOwn(LAYER, from) && Object.hasOwn(LAYER, to) && LAYER[from] < LAYER[to];

  /** @param {string} start @param {string} goal @returns {string[] | null} the shortest folder path between the two, if any */
  const pathBetween = (start, goal) => {
    /** @type {Map<string, string | null>} */
    const previous = new Map([[start, null]]);
    for (const queue = [start]; queue.length > 0;) {
      const folder = /** @type {string} */ (queue.shift());
      if (folder === goal) {
        const steps = [];
        for (let at = /** @type {string | null | undefined} */ (goal); at; at = previous.get(at)) steps.unshift(at);
        return steps;
      }
      for (const next of [...(graph.get(folder)?.keys() ?? [])].sort()) {
        if (previous.has(next)) continue;
        previous.set(next, folder);
        queue.push(next);
      }
    }
    return null;
  };

  /** @returns {string[] | null} the shortest cycle left, as folders with the first one repeated at the end */
  const shortestCycle = () => {
    /** @type {string[] | null} */
    let shortest = null;
    for (const from of [...graph.keys()].sort()) {
      for (const to of [...(graph.get(from)?.keys() ?? [])].sort()) {
        const back = pathBetween(to, from);
        if (back && (!shortest || back.length + 1 < shortest.length)) shortest = [from, ...back];
      }
    }
    return shortest;
  };

  /** @type {import("dependency-cruiser").IForbiddenRuleType[]} */
  const rules = [];
  for (let cycle = shortestCycle(); cycle; cycle = shortestCycle()) {
    const edges = cycle.slice(0, -1).map((from, i) => ({ from, to: cycle[i + 1] }));
    // Upward edges first, then the fewest imports; the first such edge on the cycle when several tie.
    const rank = (/** @type {{ from: string; to: string }} */ { from, to }) => (goesUp(from, to) ? 0 : 1e9) + importCount(from, to);
    const { from, to } = edges.reduce((best, edge) => (rank(edge) < rank(best) ? edge : best));
    const imports = importCount(from, to);
    rules.push({
      // Each rule its own name: reporters look a rule's comment up by its name.
      name: `no-circular-top-level:${from}-to-${to}`,
      severity: "error",
      comment:
        `Top-level folders of src must not depend on each other in a cycle: ${cycle.map((folder) => `src/${folder}`).join(" -> ")}. ` +
        (goesUp(from, to)
          ? `src/${from} -> src/${to} goes up the layers (${imports} imports).`
          : `Of that cycle's folder dependencies, src/${from} -> src/${to} has the fewest imports (${imports}).`),
      from: { path: `^src/${escapeRegExp(from)}/` },
      to: { path: `^src/${escapeRegExp(to)}/` },
    });
    graph.get(from)?.delete(to);
  }
  return rules;
}

/** @param {string} text @returns {string} */
function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    ...topLevelCycleRules(path.join(__dirname, "src")),
    {
      name: "no-circular",
      severity: "error",
      comment: "No module-level import cycle in src, inside one folder or across folders (a cycle across folders is also a no-circular-top-level).",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "common-imports-no-src",
      severity: "error",
      comment: "src/common is the bottom layer: it imports nothing else of src.",
      from: { path: "^src/common/" },
      to: { path: "^src/", pathNot: "^src/common/" },
    },
    {
      name: "config-imports-only-common",
      severity: "error",
      comment: "src/config may import src/common and nothing else of src.",
      from: { path: "^src/config/" },
      to: { path: "^src/", pathNot: "^src/(config|common)/" },
    },
    {
      name: "database-imports-only-common-config",
      severity: "error",
      comment: "src/database may import src/common and src/config and nothing else of src.",
      from: { path: "^src/database/" },
      to: { path: "^src/", pathNot: "^src/(database|common|config)/" },
    },
    {
      name: "registry-imports-only-common",
      severity: "error",
      comment: "src/registry, the pure TypeScript mirror of the contract, may import src/common and nothing else of src.",
      from: { path: "^src/registry/" },
      to: { path: "^src/", pathNot: "^src/(registry|common)/" },
    },
    {
      name: "registry-no-nestjs",
      severity: "error",
      comment: "src/registry is plain TypeScript: no @nestjs/* package.",
      from: { path: "^src/registry/" },
      to: { path: "(^|/)node_modules/@nestjs/|^@nestjs/" },
    },
    {
      name: "ledger-not-to-features",
      severity: "error",
      comment:
        "Features build on the ledger, never the other way round: src/ledger imports none of src/events, src/tickets, src/stream, src/chain, src/callbacks.",
      from: { path: "^src/ledger/" },
      to: { path: `^src/(${FEATURES}|chain|callbacks)/` },
    },
    {
      name: "chain-callbacks-not-to-features",
      severity: "error",
      comment: "src/chain and src/callbacks may read the ledger but import none of src/events, src/tickets, src/stream.",
      from: { path: "^src/(chain|callbacks)/" },
      to: { path: `^src/(${FEATURES})/` },
    },
    {
      name: "writer-sending-and-receipts-apart",
      severity: "error",
      comment:
        "The chain writer's sending side (src/chain/writer/sending) and its receipt watcher (src/chain/writer/receipts) import neither each other: what both send goes through src/chain/writer/broadcast.",
      from: { path: "^src/chain/writer/(sending|receipts)/" },
      to: { path: "^src/chain/writer/(sending|receipts)/", pathNot: "^src/chain/writer/$1/" },
    },
    {
      name: "writer-broadcast-below-sending-and-receipts",
      severity: "error",
      comment:
        "src/chain/writer/broadcast, the one sender of signed transactions, is shared by the sending side, the receipt watcher, the fee bumper and the refusals' answers: it imports none of them.",
      from: { path: "^src/chain/writer/broadcast/" },
      to: { path: "^src/chain/writer/(sending|receipts|fee-bump|refusals)/" },
    },
    {
      name: "src-not-to-test-or-bench",
      severity: "error",
      comment:
        "Code in src never imports test/ or bench/. Specs in src (*.spec.ts) are test code and may use the shared fixtures in test/support; the build (tsconfig.build.json) leaves them out.",
      from: { path: "^src/", pathNot: "\\.(e2e-)?spec\\.ts$" },
      to: { path: "^(test|bench)/" },
    },
    {
      name: "src-not-to-spec",
      severity: "error",
      comment: "No file in src imports a spec file.",
      from: { path: "^src/" },
      to: { path: "\\.(e2e-)?spec\\.ts$" },
    },
  ],
  options: {
    // Imports into these are recorded (so the rules above see them) but not cruised further.
    doNotFollow: { path: ["node_modules", "^test/", "^bench/", "^typechain-types/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["cjs", "es6"],
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".d.ts", ".js", ".json"],
      mainFields: ["module", "main", "types", "typings"],
    },
    skipAnalysisNotInRules: true,
  },
};
