"""The console command and its demo."""

import subprocess
import sys

import pytest

from gpflow_deep.app.cli.main import main
from gpflow_deep.app.demo import run_demo


def test_demo_trains_and_reports(tmp_path, capsys):
    assert main(["demo", "--iterations", "30", "--models", "sgp,dgp2", "--log-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "concrete: 927 training and 103 test points" in out
    header = next(line for line in out.splitlines() if line.startswith("model"))
    assert header.split() == ["model", "log-lik", "RMSE", "CRPS", "90%", "cov", "steps", "train", "s", "ms/step"]
    table = [line for line in out.splitlines() if line.startswith(("sparse variational GP", "DeepGP, 2 layers"))]
    assert len(table) == 2 and all(line.split()[-4].endswith("%") and line.split()[-3] == "30" for line in table)
    assert f"TensorBoard logs: {tmp_path}" in out and f"90% intervals: {tmp_path / 'predictions.png'}" in out
    assert (tmp_path / "sgp").is_dir() and (tmp_path / "dgp2").is_dir()
    assert (tmp_path / "predictions.png").read_bytes()[:4] == b"\x89PNG"


def test_demo_rejects_unknown_models(tmp_path):
    with pytest.raises(ValueError, match="unknown demo models"):
        run_demo(models=["dgp9"], iterations=1, log_dir=str(tmp_path))


def test_console_entry_point_help():
    result = subprocess.run([sys.executable, "-m", "gpflow_deep", "demo", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "--iterations" in result.stdout


@pytest.mark.parametrize("command", ["demo", "fit", "predict", "evaluate", "benchmark"])
def test_every_subcommand_has_help_with_an_example(command, capsys):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "example:" in out and f"gpflow-deep {command}" in out.split("example:")[1] and "--verbose" in out


def test_fit_lists_the_registered_models(capsys):
    main(["fit", "--help"])
    out = capsys.readouterr().out
    assert "deep_gp" in out and "dspp" in out


def test_console_script_is_quiet_and_errors_in_one_line(tmp_path):
    """The launcher silences TensorFlow's native start-up messages; only the error line remains."""
    launcher = "import sys; from gpflow_deep.app.cli import main; sys.exit(main())"
    arguments = ["fit", str(tmp_path / "nope.csv"), "--target", "y", "--out", str(tmp_path / "run")]
    result = subprocess.run([sys.executable, "-c", launcher, *arguments], capture_output=True, text=True)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"gpflow-deep fit: error: {tmp_path / 'nope.csv'}: no such file\n"


def test_demo_runs_every_model_of_the_package_by_default():
    from gpflow_deep.app.demo import DEFAULT_MODELS, DEMO_MODELS

    descriptions = " ".join(DEMO_MODELS[name].description for name in DEFAULT_MODELS)
    for model in ("DeepGP", "DSPP", "RandomFeatureDGP", "AEPDGP", "SoD-DGP"):
        assert model in descriptions
    assert all(0 < DEMO_MODELS[name].steps <= 3000 for name in DEMO_MODELS)
