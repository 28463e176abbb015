#!/usr/bin/env bash
# npm test: the machine check, the contract's compilation and the subgraph's build (from the ABI just
# compiled) first, then the static checks (`npm run check`) and the contract tests beside the Vitest
# run. The end-to-end files spend most of their time waiting on blocks, nodes and processes (a Vitest
# run keeps two cores less than half busy), so the checks and the contract tests, mostly
# single-threaded, fit in beside it instead of before it. Their output, kept apart, follows Vitest's;
# the run fails when any of the three does.
set -u
npm run -s test:setup || exit 1
npm run -s compile -- --quiet || exit 1

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
# Before Vitest, whose subgraph test runs this build (and would write the same directories to build it
# itself); its output only if it fails.
npm run -s subgraph:build >"$logs/subgraph" 2>&1 || { cat "$logs/subgraph"; exit 1; }
npm run -s check >"$logs/check" 2>&1 &
check=$!
npm run -s test:contracts -- --no-compile >"$logs/contracts" 2>&1 &
contracts=$!

failed=()
npx vitest run || failed+=("vitest run")
wait "$check" || failed+=("npm run check")
wait "$contracts" || failed+=("npm run test:contracts")

printf '\n=== npm run check\n'
cat "$logs/check"
printf '\n=== npm run test:contracts\n'
cat "$logs/contracts"

if [ "${#failed[@]}" -gt 0 ]; then
  printf '\nnpm test failed: %s\n' "${failed[*]}" >&2
  exit 1
fi
