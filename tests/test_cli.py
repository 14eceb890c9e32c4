"""The console command and its demo."""

import subprocess
import sys

import pytest

from gpflow_deep.cli import main
from gpflow_deep.demo import run_demo


def test_demo_trains_and_reports(tmp_path, capsys):
    assert main(["demo", "--iterations", "30", "--models", "sgp,dgp2", "--log-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "concrete: 927 training and 103 test points" in out
    assert out.count("test log-lik") == 2 and f"TensorBoard logs: {tmp_path}" in out
    assert (tmp_path / "sgp").is_dir() and (tmp_path / "dgp2").is_dir()


def test_demo_rejects_unknown_models(tmp_path):
    with pytest.raises(ValueError, match="unknown demo models"):
        run_demo(models=["dgp9"], iterations=1, log_dir=str(tmp_path))


def test_console_entry_point_help():
    result = subprocess.run([sys.executable, "-m", "gpflow_deep", "demo", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "--iterations" in result.stdout
