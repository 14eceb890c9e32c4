"""Value and gradient of ‖q_lᵀ P‖² (a GP layer's posterior-variance term): the package's stacked,
hand-written gradient over the triangle's column blocks against automatic differentiation of the
dense expression.

Shapes are those of the papers' DSVI models on the bundled data: L inner outputs (8 for concrete,
13 for boston), M = 100 inducing points, N points per batch; then a last layer (L = 1) on 20 paths
of boston's 455 rows (AEPDGP's training step) and a layer of width 8 at batch 10,000. Example::

    python -m benchmarks variance_gradient --repeats 200
"""

import argparse
from typing import List, Optional

import numpy as np
import tensorflow as tf

from benchmarks.common import median_seconds
from gpflow_deep.app.benchmark.machine import machine
from gpflow_deep.layers.gp.sparse_marginals import projected_square_norms, triangle_blocks


def autodiff(q, P):
    return tf.transpose(tf.reduce_sum(tf.square(tf.linalg.matmul(q, P, transpose_a=True)), axis=-2))


def timed(function, q, P, weights, repeats):
    @tf.function
    def value_and_gradient():
        with tf.GradientTape() as tape:
            tape.watch([q, P])
            value = tf.reduce_sum(weights * function(q, P))
        return tape.gradient(value, [q, P])

    return median_seconds(lambda: value_and_gradient()[0].numpy(), repeats)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks variance_gradient",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    print(f"# {machine()}, float64, median of {args.repeats}")
    print("| L | M | N | blocks | autodiff (ms) | hand-written (ms) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for L, N in ((8, 256), (8, 927), (13, 256), (13, 455), (1, 9100), (8, 10_000)):
        q = tf.constant(np.tril(rng.normal(size=(L, 100, 100))))
        P = tf.constant(rng.normal(size=(100, N)))
        weights = tf.constant(rng.normal(size=(N, L)))
        repeats = max(5, args.repeats * 455 // max(N, 455))
        slow = timed(autodiff, q, P, weights, repeats)
        fast = timed(projected_square_norms, q, P, weights, repeats)
        blocks = len(triangle_blocks(100, L))
        print(f"| {L} | 100 | {N} | {blocks} | {1000 * slow:.2f} | {1000 * fast:.2f} | {fast / slow:.2f} |")
    return 0


if __name__ == "__main__":
    main()
