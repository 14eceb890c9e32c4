"""Early stopping on the held-out log predictive density, keeping the best parameters."""

from typing import List, Optional, Tuple

import numpy as np


class EarlyStopping:
    """Scores the model on held-out data and remembers its best parameters.

    :param model: the model being trained.
    :param validation_data: held-out (X, Y) tensors.
    :param patience: stop after this many checks in a row without improvement; None to only
        track the score and restore the best parameters at the end.
    """

    def __init__(self, model, validation_data, patience: Optional[int]):
        self.model = model
        self.validation_data = validation_data
        self.patience = patience
        self.history: List[Tuple[int, float]] = []
        self.best_iteration = 0
        self._best_score = -np.inf
        self._best_values: Optional[List[np.ndarray]] = None
        self._checks_without_improvement = 0

    def check(self, iteration: int) -> float:
        """Score the model after ``iteration``; returns the mean log-density per point."""
        score = float(np.mean(self.model.predict_log_density(self.validation_data)))
        self.history.append((iteration, score))
        if score > self._best_score:
            self._best_score, self.best_iteration = score, iteration
            self._best_values = [v.numpy() for v in self.model.trainable_variables]
            self._checks_without_improvement = 0
        else:
            self._checks_without_improvement += 1
        return score

    @property
    def should_stop(self) -> bool:
        """Whether ``patience`` checks in a row have not improved on the best."""
        return self.patience is not None and self._checks_without_improvement >= self.patience

    def restore_best(self) -> None:
        """Put back the parameters of the best check."""
        if self._best_values is not None:
            for variable, value in zip(self.model.trainable_variables, self._best_values):
                variable.assign(value)
