#!/usr/bin/env bash
# npm test: the machine check and the contract's compilation first, then the static checks
# (`npm run check`), the contract tests and the subgraph's build (`npm run subgraph:build`, from the
# compiled ABI) beside the Vitest run. The end-to-end files spend most of their time waiting on
# blocks, nodes and processes (a Vitest run keeps two cores less than half busy), so the checks, the
# contract tests and the subgraph's build, mostly single-threaded, fit in beside it instead of before
# it. Their output, kept apart, follows Vitest's; the run fails when any of the four does.
set -u
npm run -s test:setup || exit 1
npm run -s compile -- --quiet || exit 1

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
npm run -s check >"$logs/check" 2>&1 &
check=$!
npm run -s test:contracts -- --no-compile >"$logs/contracts" 2>&1 &
contracts=$!
npm run -s subgraph:build >"$logs/subgraph" 2>&1 &
subgraph=$!

failed=()
npx vitest run || failed+=("vitest run")
wait "$check" || failed+=("npm run check")
wait "$contracts" || failed+=("npm run test:contracts")
wait "$subgraph" || failed+=("npm run subgraph:build")

printf '\n=== npm run check\n'
cat "$logs/check"
printf '\n=== npm run test:contracts\n'
cat "$logs/contracts"
printf '\n=== npm run subgraph:build\n'
cat "$logs/subgraph"

if [ "${#failed[@]}" -gt 0 ]; then
  printf '\nnpm test failed: %s\n' "${failed[*]}" >&2
  exit 1
fi
