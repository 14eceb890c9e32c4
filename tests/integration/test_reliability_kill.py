"""Interrupted training loses nothing: a run killed with SIGKILL (mid-run, or inside a checkpoint
write) and started again with the same arguments ends with exactly the parameters, held-out
history and best iteration of an uninterrupted run (early stopping's state is in the checkpoints).
The runs are real subprocesses of ``tests/integration/reliability_run.py``."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

SCRIPT = Path(__file__).with_name("reliability_run.py")
ITERATIONS = 40  # reliability_run.ITERATIONS
TIMEOUT = 240


def start(checkpoint_dir: Path, output: Path, *options: str) -> subprocess.Popen:
    environment = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    command = [sys.executable, str(SCRIPT), str(checkpoint_dir), str(output), *options]
    return subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def finish(process: subprocess.Popen) -> None:
    _, errors = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, errors.decode()[-2000:]


def kill_when(process: subprocess.Popen, ready) -> None:
    """SIGKILL ``process`` as soon as ``ready()`` holds (while it is still running)."""
    deadline = time.monotonic() + TIMEOUT
    while not ready():
        assert process.poll() is None, f"the run ended before the kill: {process.stderr.read().decode()[-2000:]}"
        assert time.monotonic() < deadline, "the run never got to the point of the kill"
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=TIMEOUT)
    assert process.returncode == -signal.SIGKILL


def parameters(output: Path) -> list:
    with np.load(output) as saved:
        return [saved[name] for name in sorted(saved.files)]


def recorded_iterations(checkpoint_dir: Path) -> list:
    state = tf.train.get_checkpoint_state(str(checkpoint_dir))
    return [int(path.rsplit("-", 1)[1]) for path in state.all_model_checkpoint_paths]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The parameters of a run that nothing stops (started now, read when first needed)."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    process = start(folder / "checkpoints", folder / "final.npz")
    cache = {}

    def result() -> list:
        if not cache:
            finish(process)
            cache["parameters"] = parameters(folder / "final.npz")
        return cache["parameters"]

    yield result
    if process.poll() is None:
        process.kill()


def assert_identical(ours: list, theirs: list) -> None:
    assert len(ours) == len(theirs) > 0
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


@pytest.mark.slow  # ~60 s of training processes; exact resume is also checked in-process (tests/unit/training)
def test_sigkill_mid_run_then_rerun_ends_exactly_as_an_uninterrupted_run(uninterrupted, tmp_path):
    checkpoints, output = tmp_path / "checkpoints", tmp_path / "final.npz"
    killed = start(checkpoints, output, "--pause-after-save", "1.0")
    kill_when(killed, lambda: (checkpoints / "checkpoint").exists())
    assert not output.exists()
    done = recorded_iterations(checkpoints)
    assert done and max(done) < ITERATIONS  # it was stopped part-way, after a checkpoint
    finish(start(checkpoints, output))
    assert max(recorded_iterations(checkpoints)) == ITERATIONS
    with np.load(output) as resumed:
        assert len(resumed["history"]) == ITERATIONS // 5  # every check, those before the kill included
    assert_identical(parameters(output), uninterrupted())


@pytest.mark.slow  # three training processes (~50 s)
def test_sigkill_inside_a_checkpoint_write_leaves_the_previous_one_usable(uninterrupted, tmp_path):
    checkpoints, output, marker = tmp_path / "checkpoints", tmp_path / "final.npz", tmp_path / "in_commit"
    killed = start(checkpoints, output, "--hang-in-commit", str(marker))
    kill_when(killed, marker.exists)
    assert recorded_iterations(checkpoints) == [5]  # ckpt-10's files were written, never recorded
    assert (checkpoints / "ckpt-10.index").exists()
    finish(start(checkpoints, output))
    assert_identical(parameters(output), uninterrupted())
