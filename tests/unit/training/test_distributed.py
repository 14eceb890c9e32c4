"""``fit(..., strategy=...)``: under a ``MirroredStrategy`` over two logical CPU devices the
objective and gradients are those of one device on the same global batch; two
``MultiWorkerMirroredStrategy`` workers on localhost end with equal parameters.

Logical devices must be set before TensorFlow sets up its devices, and a multi-worker strategy
before any other TensorFlow work, so every run is a fresh process of ``tests/unit/training/distributed_run.py``.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fixtures.network import free_ports

SCRIPT = Path(__file__).with_name("distributed_run.py")
TIMEOUT = 600

# Subprocesses with two logical devices (about 40 s of CPU): run with the slow tests (pytest -m slow).
pytestmark = pytest.mark.slow


def run(*arguments: str) -> subprocess.Popen:
    environment = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    environment.pop("TF_CONFIG", None)
    command = [sys.executable, str(SCRIPT), *arguments]
    return subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen) -> None:
    try:
        _, errors = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        _, errors = process.communicate()
    assert process.returncode == 0, errors[-3000:]


@pytest.fixture(scope="module")
def mirrored(tmp_path_factory):
    output = tmp_path_factory.mktemp("mirrored") / "mirrored.npz"
    finish(run("mirrored", str(output)))
    return dict(np.load(output))


def test_dspp_objective_and_gradients_equal_one_device_on_the_global_batch(mirrored):
    """DSPP (deterministic), a global batch of 7 split 3 + 4: equal objective and gradients."""
    single, distributed = mirrored["dspp_objectives"]
    np.testing.assert_allclose(distributed, single, rtol=1e-12)
    gradients = mirrored["dspp_gradients"]
    np.testing.assert_allclose(gradients[1], gradients[0], rtol=1e-10, atol=1e-10 * np.abs(gradients[0]).max())
    assert np.abs(gradients[0]).max() > 0


def test_one_layer_deep_gp_objective_and_gradients_equal_one_device(mirrored):
    """A one-layer DeepGP (its ELBO is analytic with a Gaussian likelihood: no noise), full batch
    of 24 split 12 + 12: equal objective and gradients, the KL counted once."""
    single, distributed = mirrored["deep_gp_one_layer_objectives"]
    np.testing.assert_allclose(distributed, single, rtol=1e-12)
    gradients = mirrored["deep_gp_one_layer_gradients"]
    np.testing.assert_allclose(gradients[1], gradients[0], rtol=1e-10, atol=1e-10 * np.abs(gradients[0]).max())


def test_replicas_draw_different_noise_and_a_deep_gp_trains(mirrored):
    seeds = mirrored["replica_seeds"]
    assert seeds.shape == (2, 2) and not np.array_equal(seeds[0], seeds[1])
    objectives = mirrored["deep_gp_objectives"]
    assert len(objectives) == 3 and np.all(np.isfinite(objectives))


def test_a_model_or_option_the_strategy_cannot_take_is_refused(mirrored):
    errors = json.loads(str(mirrored["errors"]))
    assert errors["model_outside_scope"].startswith("ValueError: model:")
    assert "with strategy.scope()" in errors["model_outside_scope"]
    assert errors["natural_gradients"].startswith("ValueError: natgrad_gamma")


@pytest.mark.slow
def test_two_workers_end_with_equal_parameters(tmp_path):
    """Two processes of a MultiWorkerMirroredStrategy (one replica each) train a DeepGP for 4
    steps: the same objectives on both, and bitwise equal parameters."""
    ports = ",".join(str(port) for port in free_ports(2))
    outputs = [tmp_path / f"worker{index}.npz" for index in range(2)]
    workers = [run("worker", str(index), ports, str(output)) for index, output in enumerate(outputs)]
    for worker in workers:
        finish(worker)
    first, second = (np.load(output) for output in outputs)
    assert int(first["replicas"]) == 2
    np.testing.assert_array_equal(first["objectives"], second["objectives"])
    np.testing.assert_array_equal(first["parameters"], second["parameters"])
    assert np.all(np.isfinite(first["objectives"])) and len(first["objectives"]) == 4
