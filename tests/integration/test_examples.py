"""The example scripts run end to end in their ``--quick`` form and save their figure (the five
longest with the slow tests, ``pytest -m slow``)."""

import os
import runpy
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples")
SLOW = pytest.mark.slow
QUICK_EXAMPLES = (
    pytest.param("step_function.py", marks=SLOW),
    pytest.param("heteroscedastic.py", marks=SLOW),
    "binary_classification.py",
    pytest.param("classification.py", marks=SLOW),
    "custom_training_loop.py",
    pytest.param("bimodal.py", marks=SLOW),
    "random_features.py",
    pytest.param("subset_of_data.py", marks=SLOW),
)


@pytest.mark.parametrize("script", QUICK_EXAMPLES)
def test_example_saves_its_figure(script, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    output = tmp_path / "figure.png"
    monkeypatch.setattr(sys, "argv", [script, "--quick", "--output", str(output)])
    runpy.run_path(os.path.join(EXAMPLES, script), run_name="__main__")
    assert output.read_bytes()[:4] == b"\x89PNG"
    assert f"wrote {output}" in capsys.readouterr().out


def test_custom_loop_writes_tensorboard_events(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["custom_training_loop.py", "--quick", "--log-dir", "logs"])
    runpy.run_path(os.path.join(EXAMPLES, "custom_training_loop.py"), run_name="__main__")
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(tmp_path / "logs"))


def test_streaming_example_prints_the_test_log_likelihood(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["streaming_fit.py", "--quick"])
    runpy.run_path(os.path.join(EXAMPLES, "streaming_fit.py"), run_name="__main__")
    output = capsys.readouterr().out
    assert "2000 rows streamed, 20 steps" in output
    assert float(output.split("test log-likelihood:")[1].split()[0]) > -3
