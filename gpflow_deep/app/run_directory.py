"""A trained model on disk, with everything needed to predict with it again.

A run directory holds:

- ``config.json``: the model's registered name, its builder and the builder's arguments, the
  likelihood, the seed and the training options;
- ``preprocessing.json``: the :class:`~gpflow_deep.app.tables.Preprocessing` of the table;
- ``training_arrays.npz``: the standardised training inputs and targets the builder was given;
- ``parameters/``: a ``tf.train.Checkpoint`` of the trained model;
- ``training.json``: what training did (iterations, time, held-out scores);
- ``logs/``: TensorBoard summaries.

Restoring calls the same builder with the same arguments on the same arrays, which gives a model
of the same structure for every model of the package, then loads the trained parameters into it.
"""

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Optional

import numpy as np
import tensorflow as tf

from gpflow_deep.app.tables import Preprocessing
from gpflow_deep.registry import accepts_likelihood, builder_named, make_likelihood

CONFIG_FILE = "config.json"
PREPROCESSING_FILE = "preprocessing.json"
TRAINING_ARRAYS_FILE = "training_arrays.npz"
PARAMETERS_PREFIX = os.path.join("parameters", "model")
SUMMARY_FILE = "training.json"
LOG_DIR = "logs"


class RunDirectoryError(ValueError):
    """A run directory that is missing or incomplete."""


@dataclass
class RunConfig:
    """How the model of a run was built and trained."""

    model: str
    builder: str
    num_layers: int
    likelihood: str
    seed: int
    num_classes: Optional[int] = None
    training: dict = field(default_factory=dict)

    def build(self, X: np.ndarray, Y: np.ndarray):
        """A fresh model from the builder, on the given (standardised) training arrays."""
        builder = builder_named(self.builder)
        arguments = dict(num_layers=self.num_layers, seed=self.seed)
        likelihood = make_likelihood(self.likelihood, self.num_classes)
        if likelihood is not None:
            if not accepts_likelihood(builder):
                raise ValueError(f"model {self.model} supports only a Gaussian likelihood, not {self.likelihood}")
            arguments["likelihood"] = likelihood
        return builder(X, Y, **arguments)


@dataclass
class Run:
    """A restored run: its configuration, preprocessing and trained model."""

    directory: str
    config: RunConfig
    preprocessing: Preprocessing
    model: object


def save_run(directory: str, config: RunConfig, preprocessing: Preprocessing, X, Y, model, summary: dict) -> None:
    """Write everything :func:`load_run` needs into ``directory`` (created if need be)."""
    os.makedirs(directory, exist_ok=True)
    _write_json(os.path.join(directory, CONFIG_FILE), asdict(config))
    _write_json(os.path.join(directory, PREPROCESSING_FILE), preprocessing.to_dict())
    _write_json(os.path.join(directory, SUMMARY_FILE), summary)
    np.savez(os.path.join(directory, TRAINING_ARRAYS_FILE), X=np.asarray(X), Y=np.asarray(Y))
    tf.train.Checkpoint(model=model).write(os.path.join(directory, PARAMETERS_PREFIX))


def load_run(directory: str) -> Run:
    """Rebuild the model of a run directory and restore its trained parameters."""
    if not os.path.isdir(directory):
        raise RunDirectoryError(f"{directory}: no such run directory")
    needed = (CONFIG_FILE, PREPROCESSING_FILE, TRAINING_ARRAYS_FILE, PARAMETERS_PREFIX + ".index")
    lacking = [name for name in needed if not os.path.exists(os.path.join(directory, name))]
    if lacking:
        raise RunDirectoryError(f"{directory} is not a complete run directory (no {', '.join(lacking)})")
    config = RunConfig(**_read_json(os.path.join(directory, CONFIG_FILE)))
    preprocessing = Preprocessing.from_dict(_read_json(os.path.join(directory, PREPROCESSING_FILE)))
    with np.load(os.path.join(directory, TRAINING_ARRAYS_FILE)) as arrays:
        model = config.build(arrays["X"], arrays["Y"])
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
