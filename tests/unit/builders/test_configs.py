"""One convention for the five builders: a frozen config per paper with ``.paper()`` and
``.default()``, keyword overrides of its fields, ``num_data`` for a sample of a larger training
set, and layers set up by their constructors."""

import dataclasses
import json
import logging

import gpflow
import numpy as np
import pytest
from legacy_calls import PATH, build, calls, digest
from legacy_calls import data as legacy_data

import gpflow_deep as gd
from gpflow_deep.builders import AEPDGPConfig, DeepGPConfig, DSPPConfig, RandomFeatureDGPConfig, SoDDGPConfig
from gpflow_deep.builders.initialisation import mean_column_variance
from gpflow_deep.layers import AEPLayer, GPLayer, RandomFeatureLayer
from gpflow_deep.layers.subset.subset_last_layer import SubsetLastLayer
from gpflow_deep.layers.subset.subset_layer import SubsetLayer

CONFIGS = {
    "build_deep_gp": DeepGPConfig,
    "build_dspp": DSPPConfig,
    "build_random_feature_dgp": RandomFeatureDGPConfig,
    "build_aep_dgp": AEPDGPConfig,
    "build_sod_dgp": SoDDGPConfig,
}
ALIASES = {  # the keywords of before the configs, and the preset each names
    "build_dspp": [(dict(paper_defaults=True), "paper"), (dict(paper_defaults=False), "default")],
    "build_random_feature_dgp": [(dict(setup="paper"), "paper"), (dict(setup="data"), "default")],
    "build_sod_dgp": [(dict(setup="paper"), "paper"), (dict(setup="data"), "default")],
}
SMALL = dict(  # fields that keep the models small
    build_deep_gp=dict(num_inducing=8),
    build_dspp=dict(num_inducing=8, num_sigma_points=3),
    build_random_feature_dgp=dict(num_features=6),
    build_aep_dgp=dict(num_inducing=8),
    build_sod_dgp=dict(subset_size=8),
)


@pytest.fixture
def data():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3))
    return X, np.sin(X[:, :1]) + 0.1 * rng.normal(size=(40, 1))


def assert_same_model(first, second):
    """Every parameter's unconstrained value and trainability, and the model's own settings."""
    first_parameters, second_parameters = (gpflow.utilities.parameter_dict(model) for model in (first, second))
    assert sorted(first_parameters) == sorted(second_parameters)
    for path, parameter in first_parameters.items():
        other = second_parameters[path]
        assert parameter.trainable == other.trainable, path
        np.testing.assert_array_equal(
            parameter.unconstrained_variable.numpy(), other.unconstrained_variable.numpy(), path
        )
    for name in ("num_data", "num_samples", "num_prediction_samples", "beta", "feed_forward", "propagation"):
        assert repr(getattr(first, name, None)) == repr(getattr(second, name, None)), name
    assert [type(layer) for layer in first.layers] == [type(layer) for layer in second.layers]


# defaults changed on purpose since the digests were written, restored for the calls that used them
DEFAULTS_CHANGED_SINCE = {
    "sod_dgp_large": dict(num_samples=10),  # SoD's T: the paper's 10, then 1 (docs/sod.md)
    "deep_gp": dict(noise_variance=0.01),  # DeepGP's noise start: the paper's 0.01, then a pilot GP's
    "aep_dgp": dict(likelihood_floor=0.0),  # AEP's floor: none (the public code's), then a pilot GP's quarter
    # random features' likelihood: Gaussian, then Student-t; their noise: unbounded, then floored at 0.8 of a pilot's;
    # their lengthscales: sqrt(D_in) over a layer's inputs, then sqrt(width) per block of them
    "random_feature_dgp": dict(student_t_df=None, pilot_noise_floor=None, lengthscales_per_block=False),
}
# DSPP's floor: 5% of the targets' variance, then a pilot GP's noise; its hidden means: learned, then held
DEFAULTS_CHANGED_SINCE["dspp"] = DEFAULTS_CHANGED_SINCE["dspp_explicit"] = dict(
    noise_floor=0.05 * mean_column_variance(legacy_data()[1]), trainable_hidden_means=True
)


@pytest.mark.parametrize("name", sorted(calls()))
def test_the_calls_of_before_the_configs_give_the_same_models(name):
    """The old keywords (``paper_defaults=True``, ``setup="paper"``, a positional ``subset_size``)
    build what they built on main before the configs (``legacy_calls.json``), to 1e-10 (random
    features to 1e-6)."""
    with open(PATH) as file:
        reference = json.load(file)[name]
    today = digest(*build(name, **DEFAULTS_CHANGED_SINCE.get(name, {})))
    assert sorted(today) == sorted(reference)
    # random features' cos and sin are float32's since the digests were written (their initial
    # weights are fitted to the features): float32's rounding, 1e-6 relative, bounds the change
    rtol = 1e-6 if name.startswith("random_feature_dgp") else 1e-10
    for key, expected in reference.items():
        np.testing.assert_allclose(
            np.array(today[key], float), np.array(expected, float), rtol=rtol, atol=1e-12, err_msg=key
        )


@pytest.mark.parametrize(
    "builder, keywords, preset",
    [(builder, keywords, preset) for builder, aliases in ALIASES.items() for keywords, preset in aliases],
)
def test_the_old_keywords_are_the_presets(data, builder, keywords, preset):
    config = getattr(CONFIGS[builder], preset)()
    build = getattr(gd, builder)
    assert_same_model(build(*data, 3, **keywords, **SMALL[builder]), build(*data, 3, config=config, **SMALL[builder]))


@pytest.mark.parametrize("builder", sorted(CONFIGS))
def test_the_default_config_is_what_a_builder_uses_unless_told(data, builder):
    build, config = getattr(gd, builder), CONFIGS[builder].default()
    assert_same_model(build(*data, **SMALL[builder]), build(*data, config=config, **SMALL[builder]))


@pytest.mark.parametrize("builder", sorted(CONFIGS))
def test_configs_are_frozen_and_every_field_is_documented(builder):
    config_class = CONFIGS[builder]
    documented = "".join(cls.__doc__ or "" for cls in config_class.__mro__)
    for field in dataclasses.fields(config_class):
        assert f":ivar {field.name}:" in documented, field.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        config_class.default().num_samples = 3


def test_the_presets_differ_where_the_docstrings_say():
    assert dataclasses.replace(AEPDGPConfig.default(), likelihood_floor=0.0) == AEPDGPConfig.paper()
    assert dataclasses.replace(DeepGPConfig.default(), noise_variance=0.01) == DeepGPConfig.paper()
    assert DSPPConfig.paper() != DSPPConfig.default()
    assert RandomFeatureDGPConfig.paper().hidden_width == 3 and RandomFeatureDGPConfig.default().hidden_width is None
    assert SoDDGPConfig.paper().whiten is False and SoDDGPConfig.default().whiten is True


def test_overrides_win_over_the_config(data):
    model = gd.build_dspp(*data, config=DSPPConfig.paper(), num_inducing=7, beta=0.2, trainable_sigma_points=False)
    assert model.layers[0].num_inducing == 7 and model.beta == 0.2 and not model.sigma_points[0].trainable
    assert all(layer.inducing_variable.trainable_variables for layer in model.layers)  # the paper's, not overridden
    sod = gd.build_sod_dgp(*data, 3, 8, setup="paper", whiten=True, inner_noise_variance=1e-3)
    assert all(layer.whiten for layer in sod.layers) and sod.layers[0].mean_function is None  # the paper's zero mean
    np.testing.assert_allclose(sod.layers[0].noise_variance.numpy(), 1e-3)
    wide = gd.build_deep_gp(*data, config=DeepGPConfig(hidden_width=5), hidden_width=2, num_inducing=6)
    assert wide.layers[0].output_dim == 2


@pytest.mark.parametrize("builder", sorted(CONFIGS))
def test_an_unknown_override_is_a_type_error_naming_the_valid_fields(data, builder):
    fields = [field.name for field in dataclasses.fields(CONFIGS[builder])]
    with pytest.raises(TypeError, match=f"{builder}\\(\\) got an unexpected keyword argument 'num_inducng'") as raised:
        getattr(gd, builder)(*data, num_inducng=5)
    assert raised.value.__notes__ == [
        f"The valid ones are the fields of {CONFIGS[builder].__name__}: {', '.join(fields)}"
    ]


def test_a_config_of_another_builder_or_with_a_preset_keyword_is_refused(data):
    with pytest.raises(TypeError, match="config must be a DeepGPConfig, got DSPPConfig"):
        gd.build_deep_gp(*data, config=DSPPConfig.default())
    with pytest.raises(TypeError, match="got both config= and setup="):
        gd.build_sod_dgp(*data, config=SoDDGPConfig.paper(), setup="paper")
    with pytest.raises(ValueError, match=r"setup must be one of \('data', 'paper'\), got 'papers'"):
        gd.build_random_feature_dgp(*data, setup="papers")


@pytest.mark.parametrize("builder", sorted(CONFIGS))
def test_a_model_built_on_a_sample_counts_the_whole_training_set(data, builder):
    """``num_data`` = N: the model's N/B scaling (and AEP's sites) count N while the
    initialisation sees the sample; the sample alone gives the same parameters where they do not
    depend on N."""
    X, Y = data
    N = 10 * len(X)
    model = getattr(gd, builder)(X, Y, 3, num_data=N, **SMALL[builder])
    assert model.num_data == N
    assert all(getattr(layer, "num_data", N) == N for layer in model.layers)
    if builder != "build_random_feature_dgp":  # its last layer starts at the posterior given N points
        assert_same_model_but_num_data(model, getattr(gd, builder)(X, Y, 3, **SMALL[builder]))
    with pytest.raises(ValueError, match="num_data=39 is fewer than the 40 rows given"):
        getattr(gd, builder)(X, Y, num_data=39)


def assert_same_model_but_num_data(first, second):
    for (path, parameter), other in zip(
        sorted(gpflow.utilities.parameter_dict(first).items()), sorted(gpflow.utilities.parameter_dict(second).items())
    ):
        assert path == other[0]
        np.testing.assert_array_equal(parameter.numpy(), other[1].numpy(), path)


def test_the_data_term_of_a_sample_is_scaled_to_the_training_set(data):
    """DeepGP's ELBO + KL is (N/B) Σ_batch E[log p(y | f)]: built with ``num_data`` = N it is N/n
    times that of the model built on the n rows alone, with the same parameters and noise."""
    X, Y = data
    sample, whole = (gd.build_deep_gp(X, Y, num_inducing=8, num_data=N) for N in (len(X), 25 * len(X)))
    terms = []
    for model in (sample, whole):
        model.rng.reset_from_seed(1)
        kl = sum(float(layer.regulariser()) for layer in model.layers)
        terms.append(float(model.maximum_log_likelihood_objective((X, Y))) + kl)
    np.testing.assert_allclose(terms[1], 25 * terms[0], rtol=1e-12)


def test_the_rule_of_a_field_left_none_follows_the_training_set_and_is_logged(data, caplog):
    X, Y = data
    with caplog.at_level(logging.INFO, logger="gpflow_deep"):
        dspp = gd.build_dspp(X, Y, num_data=1000)
        sod = gd.build_sod_dgp(X, Y, num_data=1000)
    assert dspp.layers[0].num_inducing == 40  # N/5 = 200, at most the 40 rows given
    assert "build_dspp: num_inducing=40 (0.2 per training point within [100, 300], capped at the 40 rows given)" in (
        caplog.text
    )
    assert sod.num_subset == 40 and "build_sod_dgp: subset_size=40" in caplog.text  # 100 for N = 1000, capped
    assert "build_sod_dgp: hidden_width=3 (min(30, D))" in caplog.text
    assert "build_dspp: noise_floor=" in caplog.text and "build_sod_dgp: noise_variance=" in caplog.text


LAYER_CLASSES = (GPLayer, AEPLayer, RandomFeatureLayer, SubsetLayer, SubsetLastLayer)


def layer_state(layer) -> dict:
    """A layer's parameters (unconstrained values, trainability) and plain attributes."""
    state = {
        path: (parameter.unconstrained_variable.numpy().copy(), parameter.trainable)
        for path, parameter in gpflow.utilities.parameter_dict(layer).items()
    }
    state.update({name: value for name, value in vars(layer).items() if isinstance(value, (bool, int, float, str))})
    return state


@pytest.mark.parametrize("preset", ["paper", "default"])
@pytest.mark.parametrize("builder", sorted(CONFIGS))
def test_no_builder_changes_a_layer_after_its_constructor(data, monkeypatch, builder, preset):
    """Each layer as its constructor returned it (recorded there) is the layer of the model."""
    constructed = {}
    for cls in LAYER_CLASSES:

        def record(self, *args, __init__=cls.__init__, **kwargs):
            __init__(self, *args, **kwargs)
            constructed[id(self)] = layer_state(self)  # the outermost constructor records last

        monkeypatch.setattr(cls, "__init__", record)
    config = getattr(CONFIGS[builder], preset)()
    model = getattr(gd, builder)(*data, 3, config=config, **SMALL[builder])
    for layer in model.layers:
        recorded, now = constructed[id(layer)], layer_state(layer)
        assert sorted(recorded) == sorted(now)
        for name, value in recorded.items():
            if isinstance(value, tuple):
                np.testing.assert_array_equal(now[name][0], value[0], name)
                assert now[name][1] == value[1], name
            else:
                assert now[name] == value, name


def test_the_subset_layers_come_out_of_their_constructor_set_up(data):
    held = gd.build_sod_dgp(
        *data, 3, 8, joint_sampling=False, inner_noise_variance=1e-3, train_inner_covariances=False
    ).layers
    for layer in held[:-1]:
        assert not layer.joint_sampling and not layer.q_sqrt.trainable and not layer.noise_variance.trainable
        np.testing.assert_allclose(layer.noise_variance.numpy(), 1e-3)
    trained = gd.build_sod_dgp(*data, 3, 8).layers
    for layer in trained[:-1]:
        assert layer.joint_sampling and layer.q_sqrt.trainable and layer.noise_variance.trainable
        np.testing.assert_allclose(layer.noise_variance.numpy(), 1e-8)
    assert trained[-1].q_sqrt.trainable and trained[-1].noise_variance is None
