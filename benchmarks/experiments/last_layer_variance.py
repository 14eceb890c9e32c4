"""Two ways to compute a whitened, diagonal-``q_sqrt`` GP layer's marginals, timed and checked.

- ``solve`` (what the package does, as GPflow does): A = L⁻¹K_uf, mean Aᵀm,
  variance k_ff − Σ_m (1 − s_m²) A_m².
- ``inverse_form``: B = L⁻ᵀ(I − diag(s²))L⁻¹ and α = L⁻ᵀm once, then mean K_fu α and variance
  k_ff − rowsum((K_fu B) ⊙ K_fu): plain matrix products instead of a triangular solve.

Shapes of the last layer of the DSPP speed benchmark on concrete: S·N = 8 × 927 inputs of
width 3, M = 100 inducing inputs drawn from them. Prints the time of value and gradient (median of
``--repeats``), their agreement in float64, and each form's worst variance error in float32
against float64 with the same jitter. Example::

    python -m benchmarks last_layer_variance --repeats 200
"""

import argparse
from typing import List, Optional

import gpflow
import numpy as np
import tensorflow as tf

from benchmarks.common import median_seconds
from gpflow_deep.app.benchmark.machine import machine


def solve(kernel, Z, X, q_mu, q_diag, jitter):
    """Mean and variance ``[N]`` through A = L⁻¹K_uf."""
    L = tf.linalg.cholesky(kernel(Z) + jitter * tf.eye(Z.shape[0], dtype=Z.dtype))
    A = tf.linalg.triangular_solve(L, kernel(Z, X), lower=True)
    mean = tf.linalg.matvec(A, q_mu, transpose_a=True)
    variance = kernel(X, full_cov=False) - tf.linalg.matvec(tf.square(A), 1.0 - tf.square(q_diag), transpose_a=True)
    return mean, variance


def inverse_form(kernel, Z, X, q_mu, q_diag, jitter):
    """Mean and variance ``[N]`` through B = L⁻ᵀ(I − diag(s²))L⁻¹ and α = L⁻ᵀm."""
    eye = tf.eye(Z.shape[0], dtype=Z.dtype)
    L_inverse = tf.linalg.triangular_solve(tf.linalg.cholesky(kernel(Z) + jitter * eye), eye, lower=True)
    B = tf.linalg.matmul(L_inverse * (1.0 - tf.square(q_diag))[:, None], L_inverse, transpose_a=True)
    K_fu = kernel(X, Z)
    mean = tf.linalg.matvec(K_fu, tf.linalg.matvec(L_inverse, q_mu, transpose_a=True))
    variance = kernel(X, full_cov=False) - tf.reduce_sum(tf.linalg.matmul(K_fu, B) * K_fu, axis=-1)
    return mean, variance


def problem(dtype, num_inputs, num_inducing, width, seed=0):
    """A kernel, inducing inputs, inputs and q(u) (mean and diagonal square root) in ``dtype``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((num_inputs, width))
    Z = X[rng.choice(num_inputs, num_inducing, replace=False)]
    q_mu, q_diag = rng.normal(0, 0.5, num_inducing), rng.uniform(0.05, 1.0, num_inducing)
    with gpflow.config.as_context(gpflow.config.Config(float=dtype)):
        kernel = gpflow.kernels.SquaredExponential(lengthscales=np.ones(width))
    Z, q_mu, q_diag = (tf.Variable(array.astype(dtype)) for array in (Z, q_mu, q_diag))
    return kernel, Z, tf.constant(X.astype(dtype)), q_mu, q_diag


def value_and_gradient(form, kernel, Z, X, q_mu, q_diag, jitter):
    """A compiled function: a scalar of both marginals, and its gradients."""
    variables = (Z, q_mu, q_diag, *kernel.trainable_variables)

    @tf.function
    def evaluate():
        with tf.GradientTape() as tape:
            mean, variance = form(kernel, Z, X, q_mu, q_diag, jitter)
            value = tf.reduce_sum(mean) + tf.reduce_sum(tf.math.log1p(variance))
        return value, tape.gradient(value, variables)

    return evaluate


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks last_layer_variance",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--inputs", type=int, default=8 * 927)
    parser.add_argument("--inducing", type=int, default=100)
    parser.add_argument("--width", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args(argv)
    shape = (args.inputs, args.inducing, args.width)
    print(f"{machine()}; S·N = {args.inputs}, M = {args.inducing}, width {args.width}")

    setup = problem(np.float64, *shape)
    functions = {form.__name__: value_and_gradient(form, *setup, 1e-6) for form in (solve, inverse_form)}
    (value_a, gradients_a), (value_b, gradients_b) = (function() for function in functions.values())
    difference = max(float(tf.reduce_max(tf.abs(a - b))) for a, b in zip(gradients_a, gradients_b))
    print(f"float64: values {float(value_a):.10g} / {float(value_b):.10g}, gradients differ by {difference:.1e}")
    for name, function in functions.items():
        print(f"  {name:13s} value and gradient: {1000 * median_seconds(function, args.repeats):.2f} ms")

    reference = solve(*setup, 1e-4)[1].numpy()  # float64, the same jitter
    for form in (solve, inverse_form):
        variance = form(*problem(np.float32, *shape), 1e-4)[1].numpy()
        error = np.max(np.abs(variance - reference))
        print(f"  {form.__name__:13s} float32 (jitter 1e-4): worst variance error {error:.1e}")
    return 0


if __name__ == "__main__":
    main()
