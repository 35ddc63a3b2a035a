#!/usr/bin/env bash
# Builds the fuzz targets and runs each for SECONDS (default 20), from seed
# corpora made out of ../shared at run time plus the committed regression
# inputs (fuzz/regressions/<target>/). A crash fails the run; its input is
# left in target/fuzz-artifacts/<target>/.
#
#   fuzz/run.sh [SECONDS]
#
# cargo-fuzz needs nightly rustc flags; RUSTC_BOOTSTRAP=1 lets the stable
# toolchain take them.
set -euo pipefail
cd "$(dirname "$0")"
SECS="${1:-20}"
export RUSTC_BOOTSTRAP=1
TARGETS="yaml yaml_scalars template flags config daemon_request ci_printers crd lsp_frame secrets"
CORPUS=../target/fuzz-corpus
ARTIFACTS=../target/fuzz-artifacts
cargo fuzz build -O
python3 seeds.py ../../shared "$CORPUS"
for t in $TARGETS; do
  mkdir -p "$CORPUS/$t" "$ARTIFACTS/$t" "regressions/$t"
  echo "== fuzz $t for ${SECS}s"
  cargo fuzz run -O "$t" "$CORPUS/$t" "regressions/$t" -- \
    -max_total_time="$SECS" -dict=ytt.dict -timeout=20 -rss_limit_mb=4096 \
    -artifact_prefix="$ARTIFACTS/$t/" -report_slow_units=60 -print_final_stats=1 2>&1 \
    | grep -E "^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb|INFO: .*(corpus|seed)|==.*ERROR|SUMMARY|Done)" || true
  if [ -n "$(ls -A "$ARTIFACTS/$t")" ]; then
    echo "fuzz $t: crash inputs in $ARTIFACTS/$t" >&2
    exit 1
  fi
done
