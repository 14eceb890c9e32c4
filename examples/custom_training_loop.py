"""A deep GP trained by a hand-written TensorFlow loop, watched with ``gpflow.monitor``.

Nothing of ``gd.fit``: a ``tf.data`` pipeline, ``model.training_loss_closure``, a ``tf_keras``
Adam optimizer and one ``tf.function`` step (gradient tape and update); ``gpflow.monitor``
writes the objective, the KL of every layer and the kernel parameters to TensorBoard
(``custom_loop_logs/``) every 50 steps.
Writes custom_training_loop.png: the objective per step and the predictive on the data.

    python examples/custom_training_loop.py [--quick] [--output custom_training_loop.png]
    tensorboard --logdir custom_loop_logs
"""

import argparse

import gpflow
import matplotlib
import tensorflow as tf
from gpflow.keras import tf_keras

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import gpflow_deep as gd  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps on less data (for the tests)")
    parser.add_argument("--output", default="custom_training_loop.png")
    parser.add_argument("--log-dir", default="custom_loop_logs")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.uniform(-4, 4, (80 if args.quick else 400, 1))
    Y = np.where(X < 0, np.sin(3 * X), 0.5 * X) + 0.1 * rng.normal(size=X.shape)
    steps = 20 if args.quick else 2000

    model = gd.build_deep_gp(X, Y, num_layers=2, num_inducing=20, hidden_width=1)
    batches = tf.data.Dataset.from_tensor_slices((X, Y)).repeat().shuffle(len(X), seed=0).batch(64)
    loss = model.training_loss_closure(iter(batches))
    optimizer = tf_keras.optimizers.Adam(0.01)

    variables = model.trainable_variables

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            value = loss()
        optimizer.apply_gradients(zip(tape.gradient(value, variables), variables))
        return value

    tasks = gd.training.monitor_tasks(args.log_dir, model)
    monitor = gpflow.monitor.Monitor(gpflow.monitor.MonitorTaskGroup(tasks, period=50))
    objectives = []
    for iteration in range(steps):
        objectives.append(-float(step()))
        monitor(iteration, objective=objectives[-1])

    grid = np.linspace(-4.5, 4.5, 200)[:, None]
    mean, variance = (v.numpy()[:, 0] for v in model.predict_y(grid, seed=0))
    figure, (curve, fit) = plt.subplots(1, 2, figsize=(11, 4))
    curve.plot(objectives, lw=0.8)
    curve.set(xlabel="step", ylabel="ELBO of the minibatch (scaled to N)", title="objective")
    low, high = np.percentile(objectives, 5), max(objectives)
    curve.set_ylim(low, high + 0.1 * (high - low))
    fit.fill_between(grid[:, 0], mean - 2 * np.sqrt(variance), mean + 2 * np.sqrt(variance), alpha=0.25)
    fit.plot(grid[:, 0], mean, color="C0")
    fit.plot(X, Y, ".", color="C3", ms=3)
    fit.set(xlabel="x", ylabel="y", title="predictive mean ± 2 sd after the loop")
    figure.tight_layout()
    figure.savefig(args.output, dpi=110)
    print(f"wrote {args.output}; TensorBoard: tensorboard --logdir {args.log_dir}")


if __name__ == "__main__":
    main()
