#!/usr/bin/env bash
# Runs `yttcheck ci` with action.yml's inputs, passed as environment
# variables (never spliced into the script: an input is data, not code).
set -euo pipefail

is_true() { [ "${1:-}" = true ]; }

# the workflow_run job of the fork pattern: post what the pull_request job
# wrote, check nothing
if [ -n "${COMMENT_FROM:-}" ]; then
  exec yttcheck comment --from "$COMMENT_FROM"
fi

args=(ci -C "$PWD")

if [ -n "${FAIL_ON:-}" ]; then args+=(--fail-on "$FAIL_ON"); fi
if [ -n "${SHARD:-}" ]; then args+=(--shard "$SHARD"); fi
if [ -n "${SARIF_FILE:-}" ]; then args+=(--sarif "$SARIF_FILE"); fi
if [ -n "${CACHE_DIR:-}" ]; then args+=(--cache-dir "$CACHE_DIR"); fi
if ! is_true "${CHANGED_ONLY:-true}"; then args+=(--all); fi
if ! is_true "${DIFF:-true}"; then args+=(--no-diff); fi
if ! is_true "${SUMMARY:-true}"; then args+=(--no-summary); fi
if ! is_true "${ANNOTATIONS:-true}"; then args+=(--no-annotations); fi
if is_true "${FAIL_ON_BREAKING:-false}"; then args+=(--fail-on-breaking); fi
if is_true "${FAIL_ON_EXISTING:-false}"; then args+=(--fail-on-existing); fi
if is_true "${COMMENT:-false}"; then args+=(--comment); fi
if [ -n "${COMMENT_FILE:-}" ]; then args+=(--comment-file "$COMMENT_FILE"); fi
# free-form arguments and paths are split on white space, as a shell would,
# but never evaluated
if [ -n "${ARGS:-}" ]; then
  read -r -a extra <<< "$ARGS"
  args+=("${extra[@]}")
fi
if [ -n "${PATHS:-}" ]; then
  read -r -a paths <<< "$PATHS"
  args+=(-- "${paths[@]}")
fi

exec yttcheck "${args[@]}"
