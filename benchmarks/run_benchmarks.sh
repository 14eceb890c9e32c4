#!/usr/bin/env bash
# Every accuracy run recorded in docs/benchmarks.md, for one dataset, most important first. Two
# queues (boston, concrete) run side by side with one thread each. Every command is resumable:
# re-running the script skips finished splits.   Usage: bash benchmarks/run_benchmarks.sh boston
set -euo pipefail
cd "$(dirname "$0")/.."
dataset=${1:?dataset: boston or concrete}
run() { python -m benchmarks accuracy --dataset "$dataset" --threads 1 "$@"; }
results=benchmarks/results

# DeepGP, the paper's protocol (Salimbeni & Deisenroth 2017): 20,000 full-batch Adam steps.
run --model dgp2 --splits 0-4
run --model sgp --splits 0-4
# GPflux side by side, 3 splits x 5,000 full-batch steps: identical architecture and initial
# values, and GPflux's own builder.
for implementation in gpflow_deep gpflux gpflux-builder; do
    run --model dgp2 --splits 0-2 --iterations 5000 --implementation "$implementation" --results "$results/gpflux_comparison.jsonl"
done
# DSPP, the paper's protocol (Jankowiak et al. 2020): beta and early stopping on a validation part.
run --model dspp2 --splits 0-4 --iterations 5000
# DSPP side by side with GPyTorch's: M=100, width 3, S=8, fixed beta, 1,000 full-batch Adam steps.
for beta in 0.05 1.0; do
    for implementation in gpflow_deep gpytorch; do
        run --model dspp2-gpytorch-setup --beta "$beta" --splits 0-2 --iterations 1000 \
            --implementation "$implementation" --results "$results/dspp_gpytorch.jsonl"
    done
done
run --model dgp3 --splits 0-4
# More splits, towards the papers' 20, as time allows.
run --model dgp2 --splits 5-19
run --model dspp2 --splits 5-19 --iterations 5000
run --model sgp --splits 5-19
run --model dgp3 --splits 5-19
