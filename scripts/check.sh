#!/usr/bin/env bash
# The type check and the lint side by side: each is a single-threaded process, so on two cores
# together they take about as long as the lint alone. The type check's output follows the lint's.
set -u
typecheck_log="$(mktemp)"
npm run -s typecheck >"$typecheck_log" 2>&1 &
typecheck=$!
status=0
npm run -s lint || status=1
wait "$typecheck" || status=1
cat "$typecheck_log"
rm -f "$typecheck_log"
exit "$status"
