"""Bad input at every public entry point (builders, model constructors, ``fit``, predictions,
checkpoints) gets a ValueError/TypeError naming the argument, what was given and what is expected,
before any training. Each case's exact message is a row of ``docs/reliability.md``."""

from pathlib import Path

import gpflow
import numpy as np
import pytest
from gpflow.likelihoods import Bernoulli, MultiClass, Poisson

import gpflow_deep as gd

DOC = Path(__file__).resolve().parents[2] / "docs" / "reliability.md"

rng = np.random.default_rng(7)
X = rng.uniform(-1, 1, size=(30, 2))
Y = np.sin(X[:, :1])
LABELS = (X[:, :1] > 0).astype(float)


def with_value(array, row, value):
    changed = np.array(array, dtype=float)
    changed[row] = value
    return changed


def fit(model, data, **options):
    return gd.fit(model, data, 2, progress=False, **options)


def small_deep_gp(**options):
    return gd.build_deep_gp(X, Y, num_inducing=5, **options)


# (id, call, exception, exact message)
CASES = [
    (
        "builder NaN in X",
        lambda: gd.build_deep_gp(with_value(X, 3, np.nan), Y),
        ValueError,
        "X contains NaN or Inf values",
    ),
    (
        "builder Inf in Y",
        lambda: gd.build_aep_dgp(X, with_value(Y, 0, np.inf)),
        ValueError,
        "Y contains NaN or Inf values",
    ),
    (
        "builder Y of rank 1",
        lambda: gd.build_random_feature_dgp(X, Y[:, 0]),
        ValueError,
        "Y must be a rank-2 array [N, columns], got shape (30,)",
    ),
    ("builder lengths differ", lambda: gd.build_sod_dgp(X, Y[:20]), ValueError, "Y has 20 rows but the inputs have 30"),
    (
        "builder non-numeric X",
        lambda: gd.build_dspp(X.astype(object), Y),
        TypeError,
        "X must be a numeric array, got dtype object",
    ),
    (
        "builder complex X",
        lambda: gd.build_deep_gp(X + 1j, Y),
        TypeError,
        "X must be a real array, got dtype complex128",
    ),
    (
        "builder no rows",
        lambda: gd.build_deep_gp(X[:0], Y[:0]),
        ValueError,
        "X must have at least one row and one column to train on, got shape (0, 2)",
    ),
    (
        "M > N (DeepGP)",
        lambda: gd.build_deep_gp(X, Y, num_inducing=50),
        ValueError,
        "num_inducing=50 needs at least as many training points, got N=30",
    ),
    (
        "M > N (AEPDGP)",
        lambda: gd.build_aep_dgp(X, Y, num_inducing=50),
        ValueError,
        "num_inducing=50 needs at least as many training points, got N=30",
    ),
    (
        "M > N (DSPP)",
        lambda: gd.build_dspp(X, Y, num_inducing=50),
        ValueError,
        "num_inducing=50 needs at least as many training points, got N=30",
    ),
    (
        "subset > N (SoDDGP)",
        lambda: gd.build_sod_dgp(X, Y, subset_size=40),
        ValueError,
        "subset_size=40 is more than the N=30 training points",
    ),
    (
        "inducing inputs with NaN",
        lambda: gd.build_deep_gp(X, Y, inducing_inputs=with_value(X[:5], 0, np.nan)),
        ValueError,
        "inducing_inputs contains NaN or Inf values",
    ),
    (
        "Bernoulli, labels not 0/1",
        lambda: gd.build_deep_gp(X, with_value(with_value(LABELS, 0, 2), 1, -1), likelihood=Bernoulli()),
        ValueError,
        "Y must hold 0/1 labels for a Bernoulli likelihood, got 2 value(s) such as -1, 2",
    ),
    (
        "MultiClass, label out of range",
        lambda: gd.build_random_feature_dgp(X, with_value(LABELS, 4, 3), likelihood=MultiClass(3)),
        ValueError,
        "Y must hold integer class labels in [0, 3) for MultiClass, got 1 value(s) such as 3",
    ),
    (
        "MultiClass, one-hot Y",
        lambda: gd.build_aep_dgp(X, np.hstack([LABELS, 1 - LABELS]), likelihood=MultiClass(2)),
        ValueError,
        "Y must have 1 column(s) for a MultiClass likelihood on 2 latent function(s), got 2",
    ),
    (
        "Poisson, negative count",
        lambda: gd.build_deep_gp(X, with_value(LABELS, 2, -1), likelihood=Poisson()),
        ValueError,
        "Y must hold non-negative counts for a Poisson likelihood, got 1 value(s) such as -1",
    ),
    (
        "builder unknown keyword",
        lambda: gd.build_deep_gp(X, Y, num_inducng=5),
        TypeError,
        "build_deep_gp() got an unexpected keyword argument 'num_inducng'",
    ),
    (
        "builder unknown kernel",
        lambda: gd.build_random_feature_dgp(X, Y, kernel="matern"),
        ValueError,
        "kernel must be one of ('rbf', 'arccos'), got 'matern'",
    ),
    (
        "builder unknown propagation",
        lambda: gd.build_aep_dgp(X, Y, num_inducing=5, propagation="ep"),
        ValueError,
        "propagation must be one of ('monte_carlo', 'moment_matching'), got 'ep'",
    ),
    (
        "constructor unknown option",
        lambda: gd.DeepGP(small_deep_gp().layers, gpflow.likelihoods.Gaussian(), 30, samples=3),
        TypeError,
        "DeepMixtureModel.__init__() got an unexpected keyword argument 'samples'",
    ),
    (
        "constructor num_data 0",
        lambda: gd.DeepGP(small_deep_gp().layers, gpflow.likelihoods.Gaussian(), 0),
        ValueError,
        "num_data must be a positive integer, got 0",
    ),
    (
        "fit Y too wide",
        lambda: fit(small_deep_gp(), (X, np.hstack([Y, Y]))),
        ValueError,
        "Y must have 1 column(s) for a Gaussian likelihood on 1 latent function(s), got 2",
    ),
    (
        "fit num_data below a batch",
        lambda: fit(gd.build_deep_gp(X[:10], Y[:10], num_inducing=5), (X, Y)),
        ValueError,
        "num_data: the model was built for num_data=10 training points, fewer than the 30 points of a batch; "
        "build it on this data (or give num_data ≥ 30)",
    ),
    (
        "fit NaN in Y",
        lambda: fit(small_deep_gp(), (X, with_value(Y, 5, np.nan))),
        ValueError,
        "Y contains NaN or Inf values",
    ),
    (
        "fit bad validation_data",
        lambda: fit(small_deep_gp(), (X, Y), validation_data=(X[:, :1], Y)),
        ValueError,
        "validation_data X must have 2 columns (the model's input width), got 1",
    ),
    (
        "fit unknown on_nonfinite",
        lambda: fit(small_deep_gp(), (X, Y), on_nonfinite="skip"),
        ValueError,
        "on_nonfinite must be one of ('stop', 'rollback'), got 'skip'",
    ),
    (
        "fit seed not an int",
        lambda: fit(small_deep_gp(), (X, Y), seed="a"),
        TypeError,
        "seed must be None or an integer, got 'a'",
    ),
    (
        "fit learning_rate ≤ 0",
        lambda: fit(small_deep_gp(), (X, Y), learning_rate=-0.1),
        ValueError,
        "learning_rate must be positive (a finite number > 0), got -0.1",
    ),
    (
        "fit optimizer not tf_keras",
        lambda: fit(small_deep_gp(), (X, Y), optimizer="adam"),
        TypeError,
        "optimizer must be a tf_keras optimizer (from gpflow.keras import tf_keras; tf_keras.optimizers.Adam(0.01)), "
        "got str",
    ),
    (
        "fit batch_size 0",
        lambda: fit(small_deep_gp(), (X, Y), batch_size=0),
        ValueError,
        "batch_size must be a positive integer, got 0",
    ),
    (
        "predict, wrong width",
        lambda: small_deep_gp().predict_f(X[:, :1]),
        ValueError,
        "Xnew must have 2 columns (the model's input width), got 1",
    ),
    (
        "predict, Inf in Xnew",
        lambda: small_deep_gp().predict_y(with_value(X, 1, np.inf)),
        ValueError,
        "Xnew contains NaN or Inf values",
    ),
    (
        "predict, rank 3",
        lambda: small_deep_gp().predict_mixture(X[None]),
        ValueError,
        "Xnew must be a rank-2 array [N, columns], got shape (1, 30, 2)",
    ),
    (
        "predict_log_density, labels",
        lambda: gd.build_deep_gp(X, LABELS, num_inducing=5, likelihood=Bernoulli()).predict_log_density((X, Y)),
        ValueError,
        "Y must hold 0/1 labels for a Bernoulli likelihood, got 30 value(s) such as -0.835735, -0.828493, -0.800806",
    ),
    (
        "predict, bad num_samples",
        lambda: small_deep_gp().predict_f_samples(X, num_samples=0),
        ValueError,
        "num_samples must be a positive integer, got 0",
    ),
]


@pytest.mark.parametrize("call, error, message", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_bad_input_is_refused_with_its_message(call, error, message):
    with pytest.raises(error) as raised:
        call()
    assert str(raised.value) == message


def test_a_checkpoint_from_another_architecture_is_refused_and_the_model_left_alone(tmp_path):
    fit(small_deep_gp(), (X, Y), checkpoint_dir=str(tmp_path))
    other = gd.build_deep_gp(X, Y, num_layers=3, num_inducing=5)
    before = [v.numpy() for v in other.variables]
    expected = (
        f"checkpoint_dir={str(tmp_path)!r}: ckpt-2 was written by another model or set-up than this DeepGP "
        "(Received incompatible tensor with shape (5, 1) when attempting to restore variable with shape (5, 2) and "
        "name q_mu:0.); resume with the builder, arguments and batch_size that wrote it, or give a new checkpoint_dir"
    )
    for call in (
        lambda: fit(other, (X, Y), checkpoint_dir=str(tmp_path)),
        lambda: gd.restore_checkpoint(other, str(tmp_path)),
    ):
        with pytest.raises(ValueError) as raised:
            call()
        assert str(raised.value) == expected
    assert all(np.array_equal(a, v.numpy()) for a, v in zip(before, other.variables))
    assert expected.replace(str(tmp_path), "<dir>") in DOC.read_text()


def test_every_message_is_in_the_reliability_table():
    text = DOC.read_text()
    missing = [message for _, _, _, message in CASES if f"`{message}`" not in text]
    assert not missing, missing
