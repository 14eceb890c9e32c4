"""Test setup: shape checks chosen per module by its ``shape_checks`` marker, AutoGraph failures
turned into errors."""

import logging
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402
from check_shapes import ShapeCheckingState, get_enable_check_shapes, set_enable_check_shapes  # noqa: E402

if os.environ.get("PYTEST_XDIST_WORKER"):
    # pytest.ini runs one worker per core: one thread per operation each, so that the workers'
    # thread pools do not contend for the same cores.
    tf.config.threading.set_intra_op_parallelism_threads(1)

SHAPE_CHECK_STATES = {
    "compiled": ShapeCheckingState.ENABLED,
    "eager": ShapeCheckingState.EAGER_MODE_ONLY,
    "off": ShapeCheckingState.DISABLED,
}


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "shape_checks(state): check the check_shapes specs 'compiled' (inside tf.function too), "
        "'eager' (as a user gets them; the default) or 'off'",
    )


@pytest.fixture(autouse=True)
def enable_shape_checks(request):
    """Check the ``check_shapes`` specs as the test's ``shape_checks`` marker says: inside compiled
    code too for the model, layer and objective tests (``"compiled"``), not at all for tests that
    trace many training and prediction graphs (``"off"``: ~3x quicker; the contracts are tested
    elsewhere), in eager calls otherwise (``"eager"``, as a user gets them)."""
    previous = get_enable_check_shapes()
    marker = request.node.get_closest_marker("shape_checks")
    set_enable_check_shapes(SHAPE_CHECK_STATES[marker.args[0] if marker else "eager"])
    yield
    set_enable_check_shapes(previous)


class _AutographFailures(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        if "AutoGraph could not transform" in record.getMessage():
            self.messages.append(record.getMessage())


@pytest.fixture(autouse=True)
def fail_on_autograph_fallback():
    """A function AutoGraph cannot convert runs slowly and silently; make it a test failure."""
    handler = _AutographFailures()
    logger = tf.get_logger()
    logger.addHandler(handler)
    yield
    logger.removeHandler(handler)
    assert not handler.messages, handler.messages


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture(scope="session")
def concrete_split():
    """A small standardised slice of the bundled concrete data: 200 training, 60 test points."""
    import gpflow_deep as gd

    part = gd.datasets.uci_split(gd.datasets.load("concrete"), split=0)
    return part.X_train[:200], part.Y_train[:200], part.X_test[:60], part.Y_test[:60]
