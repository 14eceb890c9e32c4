"""Distributed runs for ``tests/test_distributed.py``, each in a fresh process (run as a script).

    python tests/unit/training/distributed_run.py mirrored OUTPUT.npz
    python tests/unit/training/distributed_run.py worker INDEX PORT0,PORT1 OUTPUT.npz

``mirrored`` splits the CPU into two logical devices (which must happen before TensorFlow sets its
devices up, hence a process of its own) and takes one SGD step of learning rate 1 on the same
global batch with and without a ``MirroredStrategy`` over them: the parameters then move by minus
the gradient, so equal parameters after the step mean equal gradients. It saves the objectives and
parameters of each pair, the seeds two replicas draw, and the errors of misuse.

``worker`` is one of two ``MultiWorkerMirroredStrategy`` workers on localhost: it trains a small
DeepGP for a few steps and saves its parameters and objectives.
"""

import contextlib
import json
import os
import sys

import numpy as np


def data(N=24, D=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(N, D))
    return X, np.sin(X[:, :1]) * X[:, 1:] + 0.1 * rng.standard_normal((N, 1))


def parameters(model):
    """Every parameter's unconstrained value, trainable or not, as one vector."""
    return np.concatenate([p.unconstrained_variable.numpy().ravel() for p in model.parameters])


def one_sgd_step(build, strategy, batch_size):
    """Objective and parameters before and after one SGD(1.0) step on the same batch, on one
    device and under ``strategy``."""
    from gpflow.keras import tf_keras

    import gpflow_deep as gd

    results = []
    for distributed in (False, True):
        scope = strategy if distributed else None
        with scope.scope() if scope else contextlib.nullcontext():
            model = build()
            optimizer = tf_keras.optimizers.SGD(1.0)
        before = parameters(model)
        fitted = gd.fit(
            model, data(), 1, batch_size=batch_size, optimizer=optimizer, seed=1, strategy=scope, progress=False
        )
        results.append((fitted.objectives[0], before, parameters(model)))
    return results


def mirrored(output):
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    import gpflow_deep as gd

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    X, Y = data()
    saved = {}
    builds = {
        "dspp": (lambda: gd.build_dspp(X, Y, num_layers=2, num_inducing=5, num_sigma_points=3, hidden_width=2), 7),
        "deep_gp_one_layer": (lambda: gd.build_deep_gp(X, Y, num_layers=1, num_inducing=5), None),
    }
    for name, (build, batch_size) in builds.items():
        (single, before, after), (dist, dist_before, dist_after) = one_sgd_step(build, strategy, batch_size)
        saved.update(
            {
                f"{name}_objectives": np.array([single, dist]),
                f"{name}_gradients": np.stack([before - after, dist_before - dist_after]),
            }
        )

    with strategy.scope():
        model = gd.build_deep_gp(X, Y, num_layers=2, num_inducing=5, num_samples=2, seed=0)
    seeds = strategy.run(tf.function(model.new_seed))
    saved["replica_seeds"] = np.stack([s.numpy() for s in strategy.experimental_local_results(seeds)])
    fitted = gd.fit(model, (X, Y), 3, batch_size=8, seed=2, strategy=strategy, progress=False)
    saved["deep_gp_objectives"] = fitted.objectives

    errors = {}
    outside = gd.build_deep_gp(X, Y, num_layers=2, num_inducing=5)
    for name, call in {
        "model_outside_scope": lambda: gd.fit(outside, (X, Y), 1, strategy=strategy, progress=False),
        "natural_gradients": lambda: gd.fit(model, (X, Y), 1, natgrad_gamma=0.1, strategy=strategy, progress=False),
    }.items():
        try:
            call()
            errors[name] = ""
        except (TypeError, ValueError) as error:
            errors[name] = f"{type(error).__name__}: {error}"
    saved["errors"] = np.array(json.dumps(errors))
    np.savez(output, **saved)


def worker(index, ports, output):
    ports = ports.split(",")
    os.environ["TF_CONFIG"] = json.dumps(
        {"cluster": {"worker": [f"localhost:{port}" for port in ports]}, "task": {"type": "worker", "index": index}}
    )
    import tensorflow as tf

    import gpflow_deep as gd

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    X, Y = data(N=32)
    with strategy.scope():
        model = gd.build_deep_gp(X, Y, num_layers=2, num_inducing=5, num_samples=2, seed=0)
    fitted = gd.fit(model, (X, Y), 4, batch_size=8, seed=3, strategy=strategy, progress=False)
    np.savez(output, parameters=parameters(model), objectives=fitted.objectives, replicas=strategy.num_replicas_in_sync)


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if sys.argv[1] == "mirrored":
        mirrored(sys.argv[2])
    else:
        worker(int(sys.argv[2]), sys.argv[3], sys.argv[4])
