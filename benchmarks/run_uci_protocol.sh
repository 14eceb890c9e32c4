#!/usr/bin/env bash
# The accuracy runs recorded in docs/benchmarks.md, as two queues (one per dataset) that can run
# side by side with one TensorFlow thread each. Every command is resumable: re-running the script
# skips finished splits. Usage: bash benchmarks/run_uci_protocol.sh boston   (or concrete)
set -euo pipefail
cd "$(dirname "$0")/.."
dataset=${1:?dataset: boston or concrete}
run() { python benchmarks/uci.py --dataset "$dataset" --threads 1 "$@"; }

# The paper's protocol (Salimbeni & Deisenroth 2017): 20,000 full-batch Adam steps.
run --model dgp2 --splits 0-4
# Side by side with GPflux: identical architecture and initial values, 3 splits x 5,000 steps.
run --model dgp2 --splits 0-2 --iterations 5000 --results benchmarks/results/gpflux_comparison.jsonl
run --model dgp2 --splits 0-2 --iterations 5000 --results benchmarks/results/gpflux_comparison.jsonl --implementation gpflux
run --model sgp --splits 0-4
run --model dgp3 --splits 0-4
# More splits, towards the paper's 20, as time allows.
run --model dgp2 --splits 5-19
run --model sgp --splits 5-19
run --model dgp3 --splits 5-19
