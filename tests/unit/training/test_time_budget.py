"""``fit(..., time_budget=seconds)``: training ends with the budget, or with the iterations if sooner."""

import importlib
import itertools

import numpy as np
import pytest

import gpflow_deep as gd

fit_module = importlib.import_module("gpflow_deep.training.fit")


@pytest.fixture
def small(rng):
    X = rng.uniform(-1, 1, (30, 1))
    return X, np.sin(3 * X)


def test_a_budget_alone_trains_until_it_is_spent(small, monkeypatch):
    clock = itertools.count(0.0, 1.0)  # every reading of the clock one second later
    monkeypatch.setattr(fit_module.time, "perf_counter", lambda: next(clock))
    model = gd.build_deep_gp(*small, num_layers=1, num_inducing=5)
    result = gd.fit(model, small, None, time_budget=10, seed=0, progress=False)
    assert 3 <= result.iterations == len(result.objectives) <= 10


def test_iterations_end_a_run_before_its_budget(small):
    model = gd.build_deep_gp(*small, num_layers=1, num_inducing=5)
    assert gd.fit(model, small, 5, time_budget=3600, seed=0, progress=False).iterations == 5


def test_no_length_at_all_is_refused(small):
    model = gd.build_deep_gp(*small, num_layers=1, num_inducing=5)
    with pytest.raises(ValueError, match="iterations must be a positive integer"):
        gd.fit(model, small, None, progress=False)
