"""Early stopping on the held-out log predictive density, keeping the best parameters.

Its state (the best score, iteration and parameters, the checks without improvement and the
history of scores) lives in variables, so a checkpoint of the run holds it and a resumed run
stops, and restores, exactly as an uninterrupted one would.
"""

from typing import List, Optional, Tuple

import numpy as np
import tensorflow as tf


class EarlyStopping:
    """Scores the model on held-out data and remembers its best parameters.

    :param model: the model being trained.
    :param validation_data: held-out (X, Y) tensors.
    :param patience: stop after this many checks in a row without improvement; None to only
        track the score and restore the best parameters at the end.
    :ivar state: the variables a checkpoint must hold (a ``tf.Module``).
    """

    def __init__(self, model, validation_data, patience: Optional[int]):
        self._model = model
        self._validation_data = validation_data
        self._patience = patience
        self._trained = list(model.trainable_variables)
        self.state = tf.Module(name="early_stopping")
        self.state.best_values = [tf.Variable(v, trainable=False) for v in self._trained]
        self.state.best_score = tf.Variable(-np.inf, dtype=tf.float64, trainable=False)
        self.state.best_iteration = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.state.checks_without_improvement = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.state.scores = tf.Variable(np.zeros((0, 2)), shape=tf.TensorShape([None, 2]), trainable=False)

    def check(self, iteration: int) -> float:
        """Score the model after ``iteration``; returns the mean log-density per point."""
        score = float(np.mean(self._model.predict_log_density(self._validation_data)))
        self.state.scores.assign(tf.concat([self.state.scores, [[float(iteration), score]]], axis=0))
        if score > float(self.state.best_score.numpy()):
            self.state.best_score.assign(score)
            self.state.best_iteration.assign(iteration)
            for best, variable in zip(self.state.best_values, self._trained):
                best.assign(variable)
            self.state.checks_without_improvement.assign(0)
        else:
            self.state.checks_without_improvement.assign_add(1)
        return score

    @property
    def history(self) -> List[Tuple[int, float]]:
        """(iteration, score) of every check, those before a resume included."""
        return [(int(iteration), float(score)) for iteration, score in self.state.scores.numpy()]

    @property
    def best_iteration(self) -> int:
        """The iteration of the best check (0 before any)."""
        return int(self.state.best_iteration.numpy())

    @property
    def should_stop(self) -> bool:
        """Whether ``patience`` checks in a row have not improved on the best."""
        return self._patience is not None and int(self.state.checks_without_improvement.numpy()) >= self._patience

    def restore_best(self) -> None:
        """Put back the parameters of the best check (if there was one)."""
        if len(self.state.scores.numpy()):
            for variable, best in zip(self._trained, self.state.best_values):
                variable.assign(best)
