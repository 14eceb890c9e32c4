"""A run directory, copied anywhere, restores the trained model of every registered builder: the
builder called on a stand-in sample of the recorded shape, every variable read from the checkpoint."""

import shutil
from dataclasses import replace

import numpy as np
import pytest

import gpflow_deep as gd
from gpflow_deep.app.run_directory import (
    RunConfig,
    RunDirectoryError,
    load_run,
    noise_floor,
    sample_moments,
    save_run,
    with_chosen_floor,
)
from gpflow_deep.app.tables import Preprocessing
from gpflow_deep.registry import MODEL_BUILDERS, available_models, register_builder

FAST_MODELS = ("deep_gp", "dspp", "aep_dgp", "random_feature_dgp")  # and the three whose floor it records


@pytest.mark.parametrize(
    "model_name",
    [name if name in FAST_MODELS else pytest.param(name, marks=pytest.mark.slow) for name in available_models()],
)
def test_a_copied_run_directory_predicts_like_the_trained_model(tmp_path, model_name):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (24, 2))
    Y = np.sin(3 * X[:, :1]) + 0.1 * rng.normal(size=(24, 1))
    config = RunConfig(
        model=model_name,
        builder=MODEL_BUILDERS[model_name],
        num_layers=2,
        likelihood="gaussian",
        seed=3,
        num_data=1000,  # X, Y: a sample of a larger training set
        sample_shape=list(X.shape),
        sample_moments=sample_moments(X, Y),
    )
    model = config.build(X, Y)
    gd.fit(model, (X, Y), 3, seed=0, progress=False)
    preprocessing = Preprocessing("y", "gaussian", [dict(name="a", kind="numeric", mean=0.0, std=1.0)] * 2)
    save_run(str(tmp_path / "run"), config, preprocessing, model, summary={})
    shutil.copytree(tmp_path / "run", tmp_path / "copy")
    shutil.rmtree(tmp_path / "run")

    restored = load_run(str(tmp_path / "copy"))
    assert type(restored.model) is type(model) and restored.preprocessing == preprocessing
    assert restored.model.num_data == 1000
    X_new = rng.uniform(-1, 1, (5, 2))
    expected = model.predict_mixture(X_new, num_samples=4, seed=7)
    actual = restored.model.predict_mixture(X_new, num_samples=4, seed=7)
    for want, got in zip(expected, actual):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    for want, got in zip(model.predict_y(X_new, seed=7), restored.model.predict_y(X_new, seed=7)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
    np.testing.assert_allclose(restored.model.training_loss((X, Y)), model.training_loss((X, Y)), rtol=1e-10)
    fresh = config.build(*config.stand_in_sample()).predict_mixture(X_new, num_samples=4, seed=7)
    assert not np.allclose(fresh.means.numpy(), actual.means.numpy()), "the parameters came from the checkpoint"


@pytest.mark.parametrize(
    "model_name, option, likelihood",
    [
        ("dspp", "noise_floor", "gaussian"),
        ("aep_dgp", "likelihood_floor", "gaussian"),
        ("random_feature_dgp", "noise_floor", "studentt"),
        ("random_feature_dgp", "noise_floor", "gaussian"),
    ],
)
def test_a_floor_chosen_from_the_data_is_recorded_unless_the_options_set_it(tmp_path, model_name, option, likelihood):
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (30, 2))
    Y = np.sin(3 * X[:, :1]) + 0.1 * rng.normal(size=(30, 1))
    config = RunConfig(model_name, MODEL_BUILDERS[model_name], 2, likelihood, 0, 30, [30, 2], sample_moments(X, Y))
    model = config.build(X, Y)
    floor = noise_floor(model.likelihood)
    chosen = with_chosen_floor(config, model)
    assert chosen.builder_options == {option: floor} and config.builder_options == {}
    stand_in = noise_floor(config.build(*config.stand_in_sample()).likelihood)
    assert stand_in != pytest.approx(floor, rel=0.1)  # why it must be recorded
    assert noise_floor(chosen.build(*config.stand_in_sample()).likelihood) == pytest.approx(floor, rel=1e-12)
    given = replace(config, builder_options={option: 0.5})
    assert with_chosen_floor(given, model) is given
    deep = RunConfig("deep_gp", "build_deep_gp", 2, "gaussian", 0, 30, [30, 2], sample_moments(X, Y))
    assert with_chosen_floor(deep, deep.build(X, Y)) is deep


@pytest.mark.parametrize("name, likelihood", [("gaussian", "Gaussian"), ("studentt", "StudentT")])
def test_a_likelihood_name_reaches_random_features_as_its_builder_option(name, likelihood):
    """``gaussian`` (every random-feature run written before its default became Student-t) and
    ``studentt`` are the builder's own likelihoods, the noise started from the data; an option
    given for the same field wins."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, (30, 2))
    Y = np.sin(3 * X[:, :1]) + 0.1 * rng.normal(size=(30, 1))
    config = RunConfig("random_feature_dgp", "build_random_feature_dgp", 2, name, 0, 30, [30, 2], {})
    built = config.build(X, Y).likelihood
    assert type(built).__name__ == likelihood
    default = gd.build_random_feature_dgp(X, Y, seed=0, student_t_df=3.0 if name == "studentt" else None)
    for mine, theirs in zip(built.trainable_variables, default.likelihood.trainable_variables):
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12)
    five = replace(config, likelihood="studentt", builder_options={"student_t_df": 5.0})
    assert five.build(X, Y).likelihood.df == 5.0


def test_registry_offers_only_builders_the_package_has():
    assert {"deep_gp", "dspp"} <= set(available_models())
    register_builder("imaginary_dgp", "build_imaginary_dgp")
    try:
        assert "imaginary_dgp" not in available_models()
    finally:
        del MODEL_BUILDERS["imaginary_dgp"]


def test_incomplete_run_directory(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(RunDirectoryError, match="not a complete run directory"):
        load_run(str(tmp_path))
