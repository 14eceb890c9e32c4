"""Does a full-covariance q(W) in the last layer help a random-feature deep GP? Trained both ways.

For each split of the calibration suite (a random 90/10 split with that seed), ``build_random_feature_dgp``
with its defaults is trained as ``python -m benchmarks calibration`` trains it (``--steps`` full-batch Adam
steps at its default rate, the split as seed), and so is the same model whose last layer's q(W) has a full
covariance per output column, N(m_l, S_l S_lᵀ) with S_l lower triangular (GPflow's ``q_sqrt`` shape ``[L, F,
F]``), started at the defaults' factorised start (S_l = diag(s_l)). Everything else is the defaults'. Both are
scored on the test part in original units, paired split by split.

``rf_exact_weights`` fixes a trained model's features and sets W's exact posterior beside its q(W); this trains
the richer family from the start, with Ω, the kernel and the noise.

Example::

    python -m benchmarks rf_full_covariance --splits 2000-2009 --results benchmarks/results/rf_full_covariance.jsonl
"""

from typing import List, Optional

import gpflow
import numpy as np
import tensorflow as tf
from gpflow.kullback_leiblers import gauss_kl

from benchmarks.common import provenance, split_experiment_arguments
from benchmarks.suites.calibration import test_scores
from gpflow_deep.layers import RandomFeatureLayer

BUILDER = "build_random_feature_dgp"


class FullCovarianceWeights(RandomFeatureLayer):
    """A ``RandomFeatureLayer`` whose q(W) = Π_l N(m_l, S_l S_lᵀ) has a full covariance per output column,
    ``w_sqrt`` ``[L, F, F]`` lower triangular in place of ``w_std``: one W = m + S ε per path, and
    KL[q(W) ‖ N(0, I)] by GPflow's ``gauss_kl``. Made from a trained or fresh layer by :meth:`from_layer`."""

    @classmethod
    def from_layer(cls, layer: RandomFeatureLayer) -> "FullCovarianceWeights":
        """``layer``'s kernel, Ω and q(W) mean, shared; S_l = diag(``layer``'s s_l), its factorised q(W)."""
        if layer.local_reparameterisation:
            raise ValueError("the full-covariance layer draws one W per path: no local reparameterisation")
        copy = cls.__new__(cls)
        copy.__dict__.update(layer.__dict__)
        sqrt = np.stack([np.diag(column) for column in layer.w_std.numpy().T])
        copy.w_sqrt = gpflow.Parameter(sqrt, transform=gpflow.utilities.triangular(), name="w_sqrt")
        del copy.w_std
        return copy

    def weight_draws(self, num_paths, seed):
        """``[num_paths, F, L]``: one W = m + S ε per path, ε keyed by ``seed``."""
        shape = tf.concat([[num_paths], tf.shape(self.w_mean)], axis=0)
        noise = tf.random.stateless_normal(shape, seed, dtype=self.w_mean.dtype)
        return self.w_mean + tf.einsum("lfg,sgl->sfl", self.w_sqrt, noise)

    def weights_kl(self) -> tf.Tensor:
        """KL[q(W) ‖ N(0, I)]."""
        return gauss_kl(self.w_mean, self.w_sqrt)


def scored_split(dataset: str, split: int, steps: int) -> dict:
    """Test log-likelihood, RMSE, 90% coverage and trained noise of the defaults and of the variant."""
    import gpflow_deep as gd

    part = gd.datasets.uci_split(gd.datasets.load(dataset), split)
    y_std = float(np.reshape(part.y_std, -1)[0])
    record = {}
    for name in ("factorised", "full"):
        model = getattr(gd, BUILDER)(part.X_train, part.Y_train)
        if name == "full":
            model.layers[-1] = FullCovarianceWeights.from_layer(model.layers[-1])
        gd.fit(model, (part.X_train, part.Y_train), steps, seed=split, progress=False)
        scores = test_scores(model, part.X_test, part.Y_test, y_std)
        record[name] = {key: scores[key] for key in ("log_likelihood", "rmse", "coverage_90")}
        record[name]["noise_variance"] = float(model.likelihood.variance.numpy())
    return record


def main(argv: Optional[List[str]] = None) -> int:
    args = split_experiment_arguments("python -m benchmarks rf_full_covariance", __doc__, argv)
    from gpflow_deep.app.benchmark import append_result, parse_splits

    for split in parse_splits(args.splits):
        record = scored_split(args.dataset, split, args.steps)
        factorised, full = record["factorised"], record["full"]
        print(
            f"{args.dataset} split {split}: factorised {factorised['log_likelihood']:.3f} "
            f"(RMSE {factorised['rmse']:.2f}), full {full['log_likelihood']:.3f} (RMSE {full['rmse']:.2f})",
            flush=True,
        )
        record = dict(kind="rf_full_covariance", builder=BUILDER, dataset=args.dataset, split=split, **record)
        record.update(steps=args.steps, **provenance())
        if args.results:
            append_result(args.results, record)
    return 0


if __name__ == "__main__":
    main()
