"""``gpflow-deep fit --option NAME=VALUE``: a builder config's field from the command line, kept in
the run directory so that ``predict`` rebuilds the same model, and every mistake one line."""

import json

import numpy as np
import pytest
from fixtures.tables import regression_rows, write_csv, write_train_and_test

from gpflow_deep.app.cli.builder_options import parse_options
from gpflow_deep.app.cli.main import main
from gpflow_deep.app.cli.parsing import CommandError
from gpflow_deep.app.run_directory import CONFIG_FILE, SUMMARY_FILE, load_run, noise_floor
from gpflow_deep.registry import MODEL_BUILDERS, ModelEntry, register_model


@pytest.fixture(scope="module")
def members_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("members")
    train, test = write_train_and_test(folder, *regression_rows(40), train_rows=32)
    run_dir = folder / "run"
    options = ["--option", "num_members=3", "--option", "num_features=20"]
    arguments = ["fit", train, "--target", "price", "--out", str(run_dir), "--iterations", "5"]
    assert main(arguments + ["--model", "random_feature_dgp", *options]) == 0
    return run_dir, test


def test_the_options_reach_the_builder_and_the_run_directory(members_run):
    run_dir, _ = members_run
    config = json.loads((run_dir / CONFIG_FILE).read_text())
    floor = config["builder_options"].pop("noise_floor")  # the floor chosen from the data, recorded
    assert config["builder_options"] == {"num_members": 3, "num_features": 20}
    model = load_run(str(run_dir)).model
    assert noise_floor(model.likelihood) == pytest.approx(floor, rel=1e-12)
    assert [layer.num_members for layer in model.layers] == [3, 3]
    assert [layer.num_features for layer in model.layers] == [20, 20]
    assert model.num_samples == 3, "one training path per member"


def test_a_restored_run_predicts_with_its_options(members_run, tmp_path):
    run_dir, test = members_run
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    assert main(["predict", str(run_dir), test, "--out", str(first)]) == 0
    assert main(["predict", str(run_dir), test, "--out", str(second)]) == 0
    values = np.loadtxt(first, delimiter=",", skiprows=1)
    assert values.shape == (8, 4) and np.all(values[:, 1] > 0)
    assert first.read_text() == second.read_text()


def test_a_run_directory_written_before_options_still_loads(tmp_path, capsys):
    data = write_csv(tmp_path / "t.csv", *regression_rows(20))
    assert main(["fit", data, "--target", "price", "--out", str(tmp_path / "run"), "--iterations", "2"]) == 0
    assert "initialising deep_gp (2 layers, gaussian likelihood) from all 20 training rows" in capsys.readouterr().out
    config = json.loads((tmp_path / "run" / CONFIG_FILE).read_text())
    assert config.pop("builder_options") == {}
    (tmp_path / "run" / CONFIG_FILE).write_text(json.dumps(config))
    assert load_run(str(tmp_path / "run")).config.builder_options == {}


def test_values_are_read_as_json_and_checked_against_the_fields_types():
    options = parse_options(
        ["kernel=arccos", "noise_variance=1", "local_reparameterisation=true", "hidden_width=null"],
        "random_feature_dgp",
    )
    assert options == {"kernel": "arccos", "noise_variance": 1, "local_reparameterisation": True, "hidden_width": None}
    assert parse_options(["subset_size=200", "subset=random"], "sod_dgp") == {"subset_size": 200, "subset": "random"}
    assert parse_options([], "deep_gp") == {}


@pytest.mark.parametrize(
    "model, pair, message",
    [
        ("random_feature_dgp", "num_members=x", 'num_members: expected int, got "x"'),
        ("random_feature_dgp", "num_members=2.5", "num_members: expected int, got 2.5"),
        ("random_feature_dgp", "scale_to_data=1", "scale_to_data: expected bool, got 1"),
        ("random_feature_dgp", "num_samples=null", "num_samples: expected int, got null"),
        ("random_feature_dgp", "nope=3", "random_feature_dgp has no such option; its options: hidden_width, "),
        ("deep_gp", "inducing_inputs=[1]", "inducing_inputs: takes a Python object"),
        ("deep_gp", "seed=3", "seed: use --seed"),
        ("deep_gp", "num_layers=3", "num_layers: use --layers"),
        ("deep_gp", "num_data=3", "num_data: fit sets it from the table"),
        ("deep_gp", "num_inducing", "give NAME=VALUE"),
    ],
)
def test_a_bad_option_is_refused_before_the_table_is_read(model, pair, message, tmp_path, capsys):
    with pytest.raises(CommandError, match="^--option .*" + message.replace("[", r"\[")):
        parse_options([pair], model)
    arguments = ["fit", str(tmp_path / "absent.csv"), "--target", "y", "--out", str(tmp_path / "run")]
    assert main(arguments + ["--model", model, "--option", pair]) == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and message in error and "absent.csv" not in error


def test_a_builder_without_a_config_gets_its_options_unchecked_and_its_refusal_is_one_line(tmp_path, capsys):
    register_model(ModelEntry("configless", "build_deep_gp"))
    try:
        assert parse_options(["anything=1"], "configless") == {"anything": 1}
        data = write_csv(tmp_path / "t.csv", *regression_rows(20))
        arguments = ["fit", data, "--target", "price", "--out", str(tmp_path / "run"), "--iterations", "2"]
        assert main(arguments + ["--model", "configless", "--option", "anything=1"]) == 1
        error = capsys.readouterr().err.strip()
        assert "--option: " in error and "'anything'" in error and len(error.splitlines()) == 1
    finally:
        del MODEL_BUILDERS["configless"]


def test_fit_says_which_options_it_builds_with(tmp_path, capsys):
    data = write_csv(tmp_path / "t.csv", *regression_rows(20))
    arguments = ["fit", data, "--target", "price", "--out", str(tmp_path / "run"), "--iterations", "2"]
    assert main(arguments + ["--model", "sod_dgp", "--option", "subset_size=12", "--option", "subset=random"]) == 0
    line = "initialising sod_dgp (2 layers, gaussian likelihood, subset_size=12, subset='random') from all 20"
    assert line in capsys.readouterr().out
    assert load_run(str(tmp_path / "run")).model.num_subset == 12


def test_random_features_take_their_student_t_for_a_numeric_target_unless_told(members_run, tmp_path):
    """``--likelihood auto`` (the default) gives ``random_feature_dgp`` its builder's Student-t
    without pilots; ``--likelihood gaussian`` the Gaussian."""
    run_dir, _ = members_run
    config = json.loads((run_dir / CONFIG_FILE).read_text())
    assert config["likelihood"] == "studentt"
    choice = json.loads((run_dir / SUMMARY_FILE).read_text())["likelihood_choice"]
    assert choice["reason"].startswith("random_feature_dgp's default for a numeric target")
    assert choice["scores"] == {}, "no pilots ran"
    assert type(load_run(str(run_dir)).model.likelihood).__name__ == "StudentT"
    train, _ = write_train_and_test(tmp_path, *regression_rows(40), train_rows=32)
    gaussian_dir = tmp_path / "gaussian"
    arguments = ["fit", train, "--target", "price", "--out", str(gaussian_dir), "--iterations", "5"]
    assert main(arguments + ["--model", "random_feature_dgp", "--likelihood", "gaussian"]) == 0
    assert type(load_run(str(gaussian_dir)).model.likelihood).__name__ == "Gaussian"
