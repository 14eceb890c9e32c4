"""Test setup: shape checks switched on inside compiled code for the model and layer tests,
AutoGraph failures turned into errors."""

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

# Modules whose tests check the ``check_shapes`` specs inside ``tf.function`` too: the models, the
# layers and the objectives. Everywhere else (training, command line, examples, reliability) the
# specs are checked as a user gets them, in eager calls only, which keeps tracing 3-4 times cheaper.
SHAPE_CHECKED_MODULES = {
    "test_aep_dgp",
    "test_deep_gp",
    "test_dspp",
    "test_gp_layer",
    "test_layer_protocol",
    "test_likelihoods",
    "test_previous_main",
    "test_random_features",
    "test_sod_dgp",
    "test_svgp_equivalence",
}
# Modules that switch the checks off altogether: each traces many training steps and prediction
# graphs (every model exported, restored or run in float32), ~3x slower with them; the contracts
# are tested in the modules above.
SHAPE_UNCHECKED_MODULES = {"test_checkpoint_roundtrip", "test_export", "test_float32"}


@pytest.fixture(autouse=True)
def enable_shape_checks(request):
    """Check the ``check_shapes`` specs in compiled code too for :data:`SHAPE_CHECKED_MODULES`, not
    at all for :data:`SHAPE_UNCHECKED_MODULES`, in eager calls elsewhere."""
    previous = get_enable_check_shapes()
    module = request.module.__name__.rsplit(".", 1)[-1]
    if module in SHAPE_CHECKED_MODULES:
        set_enable_check_shapes(ShapeCheckingState.ENABLED)
    elif module in SHAPE_UNCHECKED_MODULES:
        set_enable_check_shapes(ShapeCheckingState.DISABLED)
    else:
        set_enable_check_shapes(ShapeCheckingState.EAGER_MODE_ONLY)
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
