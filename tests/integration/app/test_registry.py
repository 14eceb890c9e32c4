"""One table of models: a new model is one entry, seen by the command line, the demo and the protocol."""

import inspect
import subprocess
import sys
from fractions import Fraction

import pytest

import gpflow_deep as gd
from gpflow_deep.app.benchmark import PROTOCOL_MODELS, run_keys, run_split
from gpflow_deep.app.cli.main import main
from gpflow_deep.app.demo import DEMO_MODELS, run_demo
from gpflow_deep.registry import (
    MODEL_BUILDERS,
    MODELS,
    PAPER_STEPS,
    ModelEntry,
    Recipe,
    accepts_likelihood,
    register_model,
)

SIXTH = ModelEntry(
    "one_layer_gp",
    "build_deep_gp",
    takes_likelihood=True,
    demo=(Recipe("svgp20", "one-layer DeepGP, M=20", 1, dict(num_inducing=20), steps=4),),
    protocol=(Recipe("svgp20", "one-layer DeepGP, M=20", 1, dict(num_inducing=20), steps=PAPER_STEPS, test_samples=5),),
)


@pytest.fixture
def sixth_model():
    register_model(SIXTH)
    yield SIXTH
    del MODEL_BUILDERS[SIXTH.name]


def test_a_sixth_model_is_one_entry_seen_by_the_command_line_the_demo_and_the_protocol(sixth_model, tmp_path, capsys):
    assert main(["fit", "--help"]) == 0 and "one_layer_gp" in capsys.readouterr().out
    assert main(["demo", "--help"]) == 0 and "svgp20" in capsys.readouterr().out
    assert main(["benchmark", "--help"]) == 0 and "svgp20" in capsys.readouterr().out
    assert MODEL_BUILDERS["one_layer_gp"] == "build_deep_gp" and DEMO_MODELS["svgp20"].builder == "build_deep_gp"

    (row,) = run_demo(models=["svgp20"], log_dir=str(tmp_path), print_fn=lambda line: None)
    assert row["iterations"] == 4 and row["description"] == "one-layer DeepGP, M=20"

    assert PROTOCOL_MODELS["svgp20"].test_samples == 5
    assert run_keys("svgp20", "boston", 0)["iterations"] == PAPER_STEPS
    record = run_split("svgp20", "boston", 0, iterations=2)
    assert record["model"] == "svgp20" and record["iterations"] == 2 and "seconds_per_iteration" in record


def test_registering_refuses_a_taken_model_or_recipe_name(sixth_model):
    with pytest.raises(ValueError, match="registered already"):
        register_model(SIXTH)
    with pytest.raises(ValueError, match=r"recipes \['dgp2'\] of 'other'"):
        register_model(ModelEntry("other", "build_deep_gp", demo=(Recipe("dgp2", "clash", 2, steps=1),)))
    assert "other" not in MODELS


def test_recipes_carry_their_models_builder_and_say_how_long_they_run():
    assert {recipe.builder for recipe in DEMO_MODELS.values()} == {entry.builder for entry in MODELS.values()}
    assert PROTOCOL_MODELS["aep2"].run_length(455) == 5000  # 1,000 epochs of 100 (5 batches)
    assert PROTOCOL_MODELS["rf2"].fixed_steps(20_000) == 12_000 and PROTOCOL_MODELS["rf2"].fixed_steps(7) == 4
    assert PROTOCOL_MODELS["rf2"].fixed_hyperparameters == Fraction(3, 5)
    with pytest.raises(ValueError, match="steps or epochs"):
        Recipe("bad", "neither", 2)


@pytest.mark.parametrize("name", list(MODELS))
def test_each_entry_says_whether_its_builder_takes_a_likelihood(name):
    builder = getattr(gd, MODELS[name].builder)
    assert accepts_likelihood(builder) == MODELS[name].takes_likelihood == (name != "sod_dgp")  # SoD: Gaussian only
    assert "likelihood" in inspect.signature(builder).parameters or not MODELS[name].takes_likelihood


def test_an_unlisted_builder_is_asked_its_signature():
    def build_gaussian_only(X, Y, num_layers=2, *, seed=0):
        raise NotImplementedError

    def build_any(X, Y, num_layers=2, *, likelihood=None, seed=0):
        raise NotImplementedError

    assert not accepts_likelihood(build_gaussian_only) and accepts_likelihood(build_any)


def test_the_registry_loads_neither_tensorflow_nor_gpflow():
    code = "import sys, gpflow_deep.registry; print(sorted({'tensorflow', 'gpflow'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
