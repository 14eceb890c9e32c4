"""Test setup: shape checks switched on everywhere, AutoGraph failures turned into errors."""

import logging
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402
from check_shapes import ShapeCheckingState, get_enable_check_shapes, set_enable_check_shapes  # noqa: E402


@pytest.fixture(autouse=True)
def enable_shape_checks():
    """Check the ``check_shapes`` specs in every test, inside ``tf.function`` too."""
    previous = get_enable_check_shapes()
    set_enable_check_shapes(ShapeCheckingState.ENABLED)
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
