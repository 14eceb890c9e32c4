"""A trained model on disk, with everything needed to predict with it again, and not the data.

A run directory holds:

- ``config.json``: the model's registered name, its builder and the builder's arguments, the
  likelihood, the seed, the training set's size N and the shape of the sample the model was
  initialised from, and the training options;
- ``preprocessing.json``: the :class:`~gpflow_deep.app.tables.Preprocessing` of the table;
- ``parameters/``: a ``tf.train.Checkpoint`` of the trained model;
- ``training.json``: what training did (iterations, time, held-out scores);
- ``logs/``: TensorBoard summaries.

Restoring calls the same builder with the same arguments on a stand-in sample of the recorded
shape and ``num_data`` = N, which gives a model of the same structure, then reads every variable
of it from the checkpoint: what the builders take from the data (inducing inputs, linear means, a
subset) is a variable, so none of it comes from the stand-in. One thing is not: a floor on the
likelihood's noise variance sits in the transform of the variance (a Student-t's: of its scale).
Where a builder takes that floor from a pilot GP on its data (``DSPP``, ``AEPDGP``,
``RandomFeatureDGP``), :func:`save_run` records the floor chosen among
the builder's options (:attr:`~gpflow_deep.registry.ModelEntry.floor_option`). Otherwise the stand-in
has random values with exactly the recorded mean and standard deviation of every input column and
of the target, and anything a builder derives from those moments comes out as in training.
"""

import json
import os
from dataclasses import asdict, dataclass, field, replace
from typing import List, Optional, Tuple

import gpflow
import numpy as np
import tensorflow as tf

from gpflow_deep.app.tables import Preprocessing
from gpflow_deep.core.additive_noise import has_additive_noise, student_t_variance
from gpflow_deep.registry import MODELS, accepts_likelihood, builder_named, likelihood_options, make_likelihood

CONFIG_FILE = "config.json"
PREPROCESSING_FILE = "preprocessing.json"
PARAMETERS_PREFIX = os.path.join("parameters", "model")
SUMMARY_FILE = "training.json"
LOG_DIR = "logs"
STAND_IN_SEED = 0


class RunDirectoryError(ValueError):
    """A run directory that is missing or incomplete."""


@dataclass
class RunConfig:
    """How the model of a run was built and trained.

    :ivar num_data: N, the training rows the model's objective stands for.
    :ivar sample_shape: ``[rows, inputs]`` of the sample the builder initialised the model from.
    :ivar sample_moments: that sample's ``input_mean``, ``input_std`` (one per input), ``target_mean``
        and ``target_std``.
    :ivar builder_options: the builder's other keywords (``fit --option``), fields of its config.
    :ivar multiclass_link: ``"softmax"`` (``gpflow-deep fit`` since 2026-11-30) or ``"robust_max"``
        (GPflow's ``MultiClass``, which runs written before, without this field, used).
    """

    model: str
    builder: str
    num_layers: int
    likelihood: str
    seed: int
    num_data: int
    sample_shape: List[int]
    sample_moments: dict
    num_classes: Optional[int] = None
    training: dict = field(default_factory=dict)
    builder_options: dict = field(default_factory=dict)
    multiclass_link: str = "robust_max"

    def build(self, X: np.ndarray, Y: np.ndarray):
        """A fresh model from the builder, initialised from the (encoded) sample X ``[K, D]``,
        Y ``[K, 1]`` of a training set of ``num_data`` rows."""
        builder = builder_named(self.builder)
        arguments = dict(num_layers=self.num_layers, seed=self.seed)
        options = likelihood_options(self.builder, self.likelihood)
        likelihood = None
        if options is not None:
            arguments.update(options)
        else:
            likelihood = make_likelihood(self.likelihood, self.num_classes, self.multiclass_link == "robust_max")
        if likelihood is not None:
            if not accepts_likelihood(builder):
                raise ValueError(f"model {self.model} supports only a Gaussian likelihood, not {self.likelihood}")
            arguments["likelihood"] = likelihood
        return builder(X, Y, num_data=self.num_data, **{**arguments, **self.builder_options})

    def stand_in_sample(self) -> Tuple[np.ndarray, np.ndarray]:
        """Inputs ``[K, D]`` and targets ``[K, 1]`` of the sample's shape and moments: random
        values with exactly the sample's column means and standard deviations (counts and every
        class for Poisson and classification targets)."""
        rows, width = self.sample_shape
        moments = self.sample_moments
        rng = np.random.default_rng(STAND_IN_SEED)
        X = _with_moments(rng.standard_normal((rows, width)), moments["input_mean"], moments["input_std"])
        if self.likelihood in ("bernoulli", "multiclass"):
            Y = (np.arange(rows) % (self.num_classes or 2)).astype(float)[:, None]
        elif self.likelihood == "poisson":
            Y = rng.poisson(1.0, (rows, 1)).astype(float)
        else:
            Y = _with_moments(rng.standard_normal((rows, 1)), [moments["target_mean"]], [moments["target_std"]])
        return X, Y


def sample_moments(X: np.ndarray, Y: np.ndarray) -> dict:
    """The moments :meth:`RunConfig.stand_in_sample` reproduces, of the sample X ``[K, D]``, Y ``[K, 1]``."""
    return dict(
        input_mean=X.mean(axis=0).tolist(),
        input_std=X.std(axis=0).tolist(),
        target_mean=float(Y.mean()),
        target_std=float(Y.std()),
    )


def _with_moments(values: np.ndarray, mean, std) -> np.ndarray:
    """``values [K, D]`` shifted and scaled to exactly these column means and standard deviations."""
    spread = values.std(axis=0) if len(values) > 1 else np.zeros(values.shape[1])
    standard = np.divide(values - values.mean(axis=0), spread, out=np.zeros_like(values), where=spread > 0)
    return np.asarray(mean) + np.asarray(std) * standard


@dataclass
class Run:
    """A restored run: its configuration, preprocessing and trained model."""

    directory: str
    config: RunConfig
    preprocessing: Preprocessing
    model: object


def save_run(directory: str, config: RunConfig, preprocessing: Preprocessing, model, summary: dict) -> None:
    """Write everything :func:`load_run` needs into ``directory`` (created if need be), the
    model's noise floor among ``config``'s builder options where its builder chose it from the data."""
    os.makedirs(directory, exist_ok=True)
    _write_json(os.path.join(directory, CONFIG_FILE), asdict(with_chosen_floor(config, model)))
    _write_json(os.path.join(directory, PREPROCESSING_FILE), preprocessing.to_dict())
    _write_json(os.path.join(directory, SUMMARY_FILE), summary)
    tf.train.Checkpoint(model=model).write(os.path.join(directory, PARAMETERS_PREFIX))


def with_chosen_floor(config: RunConfig, model) -> RunConfig:
    """``config`` with ``model``'s noise floor under its builder's ``floor_option``, unless the
    options set it already or the likelihood has no floor; a stand-in sample would give another."""
    entry = MODELS.get(config.model)
    option = entry.floor_option if entry is not None and entry.builder == config.builder else None
    floor = noise_floor(model.likelihood)
    if option is None or option in config.builder_options or floor is None:
        return config
    return replace(config, builder_options={**config.builder_options, option: float(floor)})


def noise_floor(likelihood) -> Optional[float]:
    """The lower bound of ``likelihood``'s noise variance in its transform: a Gaussian's
    ``variance_lower_bound``, or a Student-t's (ν > 2) scale bound as a variance, s²ν/(ν − 2);
    None for any other likelihood."""
    if isinstance(likelihood, gpflow.likelihoods.StudentT):
        return (
            student_t_variance(likelihood.scale_lower_bound, likelihood.df) if has_additive_noise(likelihood) else None
        )
    return getattr(likelihood, "variance_lower_bound", None)


def load_run(directory: str) -> Run:
    """Rebuild the model of a run directory on a stand-in sample and restore its trained parameters."""
    if not os.path.isdir(directory):
        raise RunDirectoryError(f"{directory}: no such run directory")
    needed = (CONFIG_FILE, PREPROCESSING_FILE, PARAMETERS_PREFIX + ".index")
    lacking = [name for name in needed if not os.path.exists(os.path.join(directory, name))]
    if lacking:
        raise RunDirectoryError(f"{directory} is not a complete run directory (no {', '.join(lacking)})")
    config = RunConfig(**_read_json(os.path.join(directory, CONFIG_FILE)))
    preprocessing = Preprocessing.from_dict(_read_json(os.path.join(directory, PREPROCESSING_FILE)))
    model = config.build(*config.stand_in_sample())
    status = tf.train.Checkpoint(model=model).read(os.path.join(directory, PARAMETERS_PREFIX))
    status.assert_existing_objects_matched()
    return Run(directory, config, preprocessing, model)


def _write_json(path: str, data: dict) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")


def _read_json(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)
