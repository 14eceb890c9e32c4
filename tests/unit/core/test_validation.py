"""Bad input gets a clear error that names the argument, before any work is done."""

import gpflow
import numpy as np
import pytest

import gpflow_deep as gd
from gpflow_deep import DeepGP, GPLayer
from gpflow_deep.core.validation import check_above


@pytest.fixture
def model(rng):
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 1))
    return gd.build_deep_gp(X, Y, num_layers=2, num_inducing=5)


def test_prediction_inputs_are_checked(model, rng):
    with pytest.raises(ValueError, match="Xnew must have 2 columns"):
        model.predict_f(rng.normal(size=(4, 3)))
    with pytest.raises(ValueError, match=r"Xnew must be a rank-2 array \[N, columns\], got shape \(4,\)"):
        model.predict_y(rng.normal(size=4))
    with pytest.raises(ValueError, match="Xnew contains NaN or Inf"):
        model.predict_f(np.array([[0.0, np.inf]]))
    with pytest.raises(TypeError, match="Xnew must be a numeric array"):
        model.predict_f(np.array([["a", "b"]]))
    with pytest.raises(ValueError, match="Y has 3 rows but the inputs have 4"):
        model.predict_log_density((rng.normal(size=(4, 2)), rng.normal(size=(3, 1))))
    with pytest.raises(ValueError, match="num_samples must be a positive integer"):
        model.predict_f(rng.normal(size=(4, 2)), num_samples=0)
    with pytest.raises(ValueError, match="seed must be None, an int, a pair of ints"):
        model.predict_f(rng.normal(size=(4, 2)), seed=(1, 2, 3))


def test_layer_stacks_are_checked(rng):
    first = GPLayer(gpflow.kernels.SquaredExponential(), rng.normal(size=(5, 2)), 3)
    second = GPLayer(gpflow.kernels.SquaredExponential(), rng.normal(size=(5, 2)), 1)
    likelihood = gpflow.likelihoods.Gaussian()
    with pytest.raises(ValueError, match=r"layers\[0\] outputs 3 values but layers\[1\] takes inputs of width 2"):
        DeepGP([first, second], likelihood, num_data=10)
    with pytest.raises(ValueError, match="at least one layer"):
        DeepGP([], likelihood, num_data=10)
    with pytest.raises(TypeError, match=r"layers\[0\] \(str\) is not a layer: it lacks input_dim"):
        DeepGP(["layer"], likelihood, num_data=10)
    with pytest.raises(ValueError, match="needs 4 latent functions"):
        DeepGP([second], gpflow.likelihoods.MultiClass(4), num_data=10)
    with pytest.raises(TypeError, match="likelihood must be a gpflow.likelihoods.Likelihood"):
        DeepGP([second], "gaussian", num_data=10)
    with pytest.raises(ValueError, match="num_data must be a positive integer"):
        DeepGP([second], likelihood, num_data=0)
    with pytest.raises(ValueError, match="num_samples must be a positive integer"):
        DeepGP([second], likelihood, num_data=10, num_samples=1.5)


def test_a_value_above_a_bound_is_checked():
    assert check_above("noise", np.float64(0.2), "floor", 0.1) == 0.2
    assert check_above("noise", 1e-9, "floor", 0.0) == 1e-9
    with pytest.raises(ValueError, match="noise=0.1 must exceed floor=0.1"):
        check_above("noise", 0.1, "floor", 0.1)
    with pytest.raises(ValueError, match="noise must be positive"):
        check_above("noise", 0.0, "floor", 0.0)
    with pytest.raises(TypeError, match="noise must be a number"):
        check_above("noise", "0.2", "floor", 0.1)
