// @ts-check
/**
 * ESLint for the whole repository: src, test, scripts, bench, docker and the contract workspace (contracts/,
 * checked against its own tsconfig).
 *
 * TypeScript is linted with type information (typescript-eslint's project service: every file is
 * checked against the tsconfig.json nearest to it, so bench/ uses bench/tsconfig.json) at the
 * `recommendedTypeChecked` level. Formatting is Prettier's job (`npm run lint:format`), so
 * eslint-config-prettier comes last and switches off every stylistic rule; line length is
 * Prettier's printWidth, not max-len. Layering between src folders is dependency-cruiser's job
 * (`npm run lint:deps`).
 *
 * Relaxations, each for a stated reason, are in the blocks below; everything else is as
 * typescript-eslint recommends.
 */
import eslint from "@eslint/js";
import prettier from "eslint-config-prettier/flat";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

/** The subgraph's AssemblyScript mappings: TypeScript syntax, typed by the AssemblyScript compiler (`npm run subgraph:build`). */
const SUBGRAPH_MAPPINGS = "subgraph/src/**/*.ts";

/** Test code: vitest specs (in test/ and next to the code in src/), their support files, the Hardhat contract tests. */
const TEST_FILES = ["test/**/*.ts", "contracts/test/**/*.ts", "**/*.spec.ts", "**/*.e2e-spec.ts"];

export default defineConfig(
  // Generated, installed or local output: never linted. (client/src/schema.ts: openapi-typescript's output,
  // compared with a fresh generation by client/src/schema.spec.ts; still type-checked by tsc.)
  globalIgnores([
    "node_modules/",
    ".tools/",
    "dist/",
    "client/dist/",
    "artifacts/",
    "cache/",
    "typechain-types/",
    "contracts/artifacts/",
    "contracts/cache/",
    "contracts/types/",
    "coverage/",
    "deployments/",
    "client/src/schema.ts",
    "client/src/abi.ts",
    "subgraph/generated/",
    "subgraph/build/",
  ]),

  {
    linterOptions: {
      // An eslint-disable comment that no longer disables anything is an error, not a silent leftover.
      reportUnusedDisableDirectives: "error",
    },
  },

  {
    files: ["**/*.ts", "**/*.mts", "**/*.cts"],
    // The subgraph's mappings are AssemblyScript (block below), which no tsconfig can type.
    ignores: [SUBGRAPH_MAPPINGS],
    extends: [eslint.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        projectService: {
          // The only TypeScript files that no tsconfig includes. (docker/chain-node.ts is not listed: the
          // compose test imports it, so it is part of the root project already, and listing a file the
          // project service finds is an error.) They are checked with the root tsconfig's options.
          allowDefaultProject: ["vitest.config.mts", "docker/chain-entrypoint.ts"],
          defaultProject: "tsconfig.json",
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // The code marks deliberately unused bindings with a leading underscore, and drops properties with
      // `const { [field]: _left, ...rest } = raw`; both are intended, anything else unused is reported.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          caughtErrorsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
      // `async` without `await` is how a function meets a Promise-returning signature (Nest lifecycle hooks,
      // Hardhat's setAction, teardown and polling callbacks in tests) and how a synchronous throw becomes a
      // rejection. Dropping `async`, the rule's fix, would change that error behaviour. Unawaited and misused
      // promises stay covered by no-floating-promises and no-misused-promises.
      "@typescript-eslint/require-await": "off",
    },
  },

  {
    files: TEST_FILES,
    rules: {
      // Tests read JSON off the wire: the test API client (test/support/api-client.ts) types response bodies
      // as `any` on purpose, as do raw SQL rows and pino log lines, and specs reach into library internals
      // with `as any`. In test code these rules flag nearly every assertion (about 900 reports) without
      // finding bugs; production code in src/ keeps all of them.
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },

  {
    files: ["contracts/test/**/*.ts"],
    rules: {
      // The Hardhat contract tests use chai, whose property assertions (`expect(x).to.be.true`) are
      // expressions by design.
      "@typescript-eslint/no-unused-expressions": "off",
    },
  },

  {
    // The chain writer stays in small parts: no class takes more than 6 collaborators (its constructor's
    // parameters, metrics and configuration included), nor does any function take more than 6 parameters.
    files: ["src/chain/writer/**/*.ts"],
    ignores: TEST_FILES,
    rules: {
      "@typescript-eslint/max-params": ["error", { max: 6 }],
    },
  },

  {
    // Linted without type information: u64, i32, changetype and the other AssemblyScript built-ins are unknown
    // to TypeScript, and asc checks the types when it compiles them.
    files: [SUBGRAPH_MAPPINGS],
    extends: [eslint.configs.recommended, tseslint.configs.recommended],
  },

  {
    // This file and the dependency-cruiser config: plain JavaScript run by Node.
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    extends: [eslint.configs.recommended],
    languageOptions: { globals: globals.node },
  },

  // Last: turns off every rule that would fight Prettier.
  prettier,
);
