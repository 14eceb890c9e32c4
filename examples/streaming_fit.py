"""Training on data streamed from files: a CSV file is read batch by batch, never held in memory.

Writes a training set to a CSV file in a temporary folder, builds a 2-layer DeepGP from a sample of
it, streams the file into ``gd.fit`` (repeated every epoch) and prints the test log-likelihood.

    python examples/streaming_fit.py [--quick] [--rows 20000]
"""

import argparse
import os
import tempfile

import numpy as np

import gpflow_deep as gd
from gpflow_deep.training.data import csv_dataset


def signal(X):
    return np.sin(3 * X[:, :1]) * np.cos(X[:, 1:2])


def write_training_file(path, rows, rng):
    """A CSV file of ``rows`` noisy samples with columns x0, x1, y (written in pieces)."""
    with open(path, "w") as file:
        file.write("x0,x1,y\n")
        for start in range(0, rows, 5000):
            X = rng.uniform(-2, 2, (min(5000, rows - start), 2))
            Y = signal(X) + 0.1 * rng.standard_normal((len(X), 1))
            np.savetxt(file, np.hstack([X, Y]), delimiter=",", fmt="%.17g")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small file and a few steps (for the tests)")
    parser.add_argument("--rows", type=int, default=20_000, help="training rows written to the file")
    args = parser.parse_args()
    rows, iterations = (2000, 20) if args.quick else (args.rows, 1500)
    rng = np.random.default_rng(0)
    X_test = rng.uniform(-2, 2, (500, 2))
    Y_test = signal(X_test) + 0.1 * rng.standard_normal((500, 1))

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "train.csv")
        write_training_file(path, rows, rng)
        stream = csv_dataset(path, ["x0", "x1"], ["y"], batch_size=256, shuffle_buffer=2048, seed=0)
        X_sample, Y_sample = (tensor.numpy() for tensor in next(iter(stream)))  # one batch, to initialise
        model = gd.build_deep_gp(X_sample, Y_sample, num_layers=2, num_inducing=50)
        model.num_data = rows  # N: the minibatch terms are scaled to the whole file
        result = gd.fit(model, stream, iterations, seed=0, progress=False)

    log_density = float(np.mean(model.predict_log_density((X_test, Y_test), seed=0)))
    print(f"{rows} rows streamed, {result.iterations} steps ({result.seconds:.0f} s)")
    print(f"test log-likelihood: {log_density:.3f} per point")


if __name__ == "__main__":
    main()
