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
shape (random inputs, targets the likelihood takes) and ``num_data`` = N, which gives a model of
the same structure, then reads every variable of it from the checkpoint: what the builder took
from the data (inducing inputs, linear means, a subset) is a variable, so none of it comes from
the stand-in.
"""

import inspect
import json
import os
from dataclasses import asdict, dataclass, field
from typing import List, Optional, Tuple

import numpy as np
import tensorflow as tf

from gpflow_deep.app.tables import Preprocessing
from gpflow_deep.registry import accepts_likelihood, builder_named, make_likelihood

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
    """

    model: str
    builder: str
    num_layers: int
    likelihood: str
    seed: int
    num_data: int
    sample_shape: List[int]
    num_classes: Optional[int] = None
    training: dict = field(default_factory=dict)

    def build(self, X: np.ndarray, Y: np.ndarray):
        """A fresh model from the builder, initialised from the (encoded) sample X ``[K, D]``,
        Y ``[K, 1]`` of a training set of ``num_data`` rows."""
        builder = builder_named(self.builder)
        arguments = dict(num_layers=self.num_layers, seed=self.seed)
        likelihood = make_likelihood(self.likelihood, self.num_classes)
        if likelihood is not None:
            if not accepts_likelihood(builder):
                raise ValueError(f"model {self.model} supports only a Gaussian likelihood, not {self.likelihood}")
            arguments["likelihood"] = likelihood
        if "num_data" in inspect.signature(builder).parameters:
            return builder(X, Y, num_data=self.num_data, **arguments)
        return _scaled_to(builder(X, Y, **arguments), self.num_data)

    def stand_in_sample(self) -> Tuple[np.ndarray, np.ndarray]:
        """Inputs ``[K, D]`` and targets ``[K, 1]`` of the sample's shape: standard normal inputs,
        targets the likelihood takes (every class for classification)."""
        rows, width = self.sample_shape
        rng = np.random.default_rng(STAND_IN_SEED)
        X = rng.standard_normal((rows, width))
        if self.likelihood in ("bernoulli", "multiclass"):
            Y = np.arange(rows) % (self.num_classes or 2)
        elif self.likelihood == "poisson":
            Y = rng.poisson(1.0, rows)
        else:
            Y = rng.standard_normal(rows)
        return X, Y.astype(float)[:, None]


def _scaled_to(model, num_data: int):
    """``model`` with its objective (and any layer's site) standing for ``num_data`` rows: for the
    builders that do not take ``num_data`` yet."""
    model.num_data = num_data
    for layer in model.layers:
        if hasattr(layer, "num_data"):
            layer.num_data = num_data
    return model


@dataclass
class Run:
    """A restored run: its configuration, preprocessing and trained model."""

    directory: str
    config: RunConfig
    preprocessing: Preprocessing
    model: object


def save_run(directory: str, config: RunConfig, preprocessing: Preprocessing, model, summary: dict) -> None:
    """Write everything :func:`load_run` needs into ``directory`` (created if need be)."""
    os.makedirs(directory, exist_ok=True)
    _write_json(os.path.join(directory, CONFIG_FILE), asdict(config))
    _write_json(os.path.join(directory, PREPROCESSING_FILE), preprocessing.to_dict())
    _write_json(os.path.join(directory, SUMMARY_FILE), summary)
    tf.train.Checkpoint(model=model).write(os.path.join(directory, PARAMETERS_PREFIX))


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
