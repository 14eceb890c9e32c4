"""Train a 3-layer DeepGP on the bundled concrete data, watch it in TensorBoard, score it.

python examples/uci_regression.py --iterations 5000
tensorboard --logdir logs/concrete_dgp3
"""

import argparse

import gpflow_deep as gd


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=5000)
    parser.add_argument("--layers", type=int, default=3)
    args = parser.parse_args()

    split = gd.datasets.uci_split(gd.datasets.load("concrete"), split=0)
    model = gd.build_deep_gp(split.X_train, split.Y_train, num_layers=args.layers)
    gd.fit(
        model,
        (split.X_train, split.Y_train),
        args.iterations,
        seed=0,
        log_dir=f"logs/concrete_dgp{args.layers}",
        checkpoint_dir=f"checkpoints/concrete_dgp{args.layers}",
    )
    scores = gd.metrics.evaluate(model, split.X_test, split.Y_test, y_std=split.y_std)
    print(
        f"test log-likelihood {scores['log_likelihood']:.3f}, RMSE {scores['rmse']:.3f} MPa, CRPS {scores['crps']:.3f}"
    )


if __name__ == "__main__":
    main()
