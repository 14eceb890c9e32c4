"""``--likelihood auto`` on a numeric target: Student-t for heavy-tailed noise, Gaussian for
Gaussian noise, by short pilots scored on held-out rows of the sample."""

import numpy as np
import pytest

from gpflow_deep.app.likelihood_choice import LikelihoodChoice, choose_likelihood

TINY_PILOT = 40  # steps: the noise models already part by then on these tables


def standardised_sample(noise: str, rows: int = 300, seed: int = 0):
    """X ``[rows, 2]``, standardised Y ``[rows, 1]`` and the standard deviation it was divided by:
    a smooth function plus 0.3 × noise, Gaussian or Student-t with 2 degrees of freedom."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (rows, 2))
    noise_draws = rng.standard_t(2, rows) if noise == "t2" else rng.standard_normal(rows)
    y = np.sin(2 * X[:, 0]) + X[:, 1] + 0.3 * noise_draws
    return X, ((y - y.mean()) / y.std())[:, None], float(y.std())


@pytest.mark.slow  # two pilots: about 25 s of CPU, mostly tracing
def test_heavy_tailed_noise_chooses_studentt():
    choice = choose_likelihood(*standardised_sample("t2"), steps=TINY_PILOT)
    assert choice.likelihood == "studentt" and choice.scores["studentt"] > choice.scores["gaussian"] + 0.1
    assert choice.held_out_rows == 60 and choice.pilot_steps == TINY_PILOT and choice.reason is None


@pytest.mark.slow
def test_gaussian_noise_chooses_gaussian():
    choice = choose_likelihood(*standardised_sample("gaussian"), steps=TINY_PILOT)
    assert choice.likelihood == "gaussian" and choice.scores["gaussian"] > choice.scores["studentt"]
    # a Gaussian fit of 0.3 noise on held-out rows, in the target's units: near -0.5 log(2π e 0.09) = -0.22
    assert -0.6 < choice.scores["gaussian"] < 0.0


def test_too_few_rows_keep_gaussian_without_pilots():
    choice = choose_likelihood(np.zeros((99, 2)), np.zeros((99, 1)), 1.0)
    assert (choice.likelihood, choice.scores, choice.pilot_steps) == ("gaussian", {}, 0)
    assert choice.describe() == "likelihood: gaussian (99 rows are too few to choose; at least 100)"


def test_the_line_names_the_choice_and_both_scores():
    choice = LikelihoodChoice("studentt", {"gaussian": -1.2345, "studentt": -1.05}, 2000, 200, 31.2)
    assert choice.describe() == (
        "likelihood: studentt (held-out log-likelihood per row on 2,000 sample rows, 200 pilot steps each, "
        "31 s: gaussian -1.234, studentt -1.050)"
    )
    assert choice.to_dict()["scores"] == pytest.approx({"gaussian": -1.2345, "studentt": -1.05})
