"""Builder calls of before the configs (``paper_defaults=True``, ``setup=``, positional
``subset_size``) and a digest of the models they give, to hold today's builders to them.

``python tests/unit/builders/legacy_calls.py`` wrote ``legacy_calls.json`` on main before the
configs (commit 61c84b5); ``test_configs.py`` checks every digest to 1e-10.
"""

import json
import os
import sys

import gpflow
import numpy as np

import gpflow_deep as gd

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "legacy_calls.json")


def data():
    """60 points in 3-D with one target column, and 900 points in 2-D (SoD's medium subset size)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    Y = np.sin(X[:, :1]) + 0.1 * rng.normal(size=(60, 1))
    X_large = rng.uniform(-3, 3, size=(900, 2))
    return X, Y, X_large, np.sin(X_large[:, :1])


def calls():
    """``{name: (builder, args, keywords, data)}``: the calls, each with the data it is built on."""
    X, Y, X_large, Y_large = data()
    small, large = (X, Y), (X_large, Y_large)
    return {
        "deep_gp": ("build_deep_gp", (3,), dict(num_inducing=20, hidden_width=2, num_samples=3, seed=2), small),
        "dspp": ("build_dspp", (), {}, small),
        "dspp_paper_defaults": ("build_dspp", (), dict(paper_defaults=True), small),
        "dspp_paper_large": ("build_dspp", (), dict(paper_defaults=True, noise_floor=0.07), large),
        "dspp_explicit": ("build_dspp", (3,), dict(num_inducing=15, num_sigma_points=4, beta=0.5, seed=1), small),
        "random_feature_dgp": ("build_random_feature_dgp", (3,), dict(num_features=10), small),
        "random_feature_dgp_paper": ("build_random_feature_dgp", (4,), dict(setup="paper", num_features=10), small),
        "aep_dgp": ("build_aep_dgp", (3,), dict(num_inducing=10, hidden_width=2), small),
        "sod_dgp": ("build_sod_dgp", (3, 10), dict(num_samples=2, seed=1), small),
        "sod_dgp_paper": ("build_sod_dgp", (3, 10), dict(setup="paper", train_inner_covariances=False), small),
        "sod_dgp_large": ("build_sod_dgp", (), {}, large),
    }


def build(name: str, **changed_defaults):
    """The model of call ``name`` (with ``changed_defaults`` added to its keywords), and its data."""
    builder, args, keywords, (X, Y) = calls()[name]
    return getattr(gd, builder)(X, Y, *args, **keywords, **changed_defaults), (X, Y)


def digest(model, data) -> dict:
    """Per parameter: trainable, and three sums of its unconstrained values (plain, squared, and
    weighted by position, which a permutation changes); the objective at a fixed generator state."""
    out = {}
    for path, parameter in sorted(gpflow.utilities.parameter_dict(model).items()):
        values = np.asarray(parameter.unconstrained_variable.numpy(), dtype=float).ravel()
        weights = np.cos(np.arange(values.size))
        out[path] = [bool(parameter.trainable), float(values.sum()), float(values @ values), float(values @ weights)]
    model.rng.reset_from_seed(5)
    out["objective"] = float(model.maximum_log_likelihood_objective(data))
    return out


if __name__ == "__main__":
    print(gd.__file__, file=sys.stderr)
    with open(PATH, "w") as file:
        json.dump({name: digest(*build(name)) for name in calls()}, file, indent=0, sort_keys=True)
