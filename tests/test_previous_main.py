"""No behaviour change: DeepGP and DSPP give what main gave before the five-method refactor.

The reference values (objective and gradients for a fixed seed, then predictions after 30 seeded
Adam steps) were written by ``tests/fixtures/previous_main.py`` on commit 7863229.
"""

import numpy as np
import pytest
from fixtures.previous_main import PATH, compute


@pytest.fixture(scope="module")
def reference():
    return dict(np.load(PATH))


@pytest.fixture(scope="module")
def today():
    return compute()


def test_every_reference_value_is_reproduced_to_1e_10(reference, today):
    assert sorted(today) == sorted(reference)
    for key, expected in reference.items():
        np.testing.assert_allclose(today[key], expected, rtol=1e-10, atol=1e-10, err_msg=key)
