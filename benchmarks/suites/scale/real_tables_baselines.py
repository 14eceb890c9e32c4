"""The baselines of the large real tables, each fitted on the training CSV and scored on the test CSV.

linear: least squares with one Gaussian noise level from the training residuals (regression), or
logistic regression (classification; multinomial for more than two classes). trees: histogram
gradient boosting, early-stopped on 10% of the training rows, with one Gaussian noise level from the
residuals of another 10% held out from it (regression). svgp: a one-layer GPflow SVGP, ARD squared
exponential, M inducing inputs from k-means on 20,000 training rows, minibatches of 10,000, Adam
0.01, stopped at a wall-clock budget.
"""

import time
from typing import Callable, Dict, Tuple

import numpy as np
import pandas as pd

from benchmarks.suites.scale.real_tables_data import TABLES, Design, Table, complete_rows, targets
from benchmarks.suites.scale.real_tables_scores import class_scores, gaussian_scores, labels_scores

Prepared = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def prepare(train_csv: str, test_csv: str, table: Table) -> Prepared:
    """``X_train [N, D], y_train [N], X_test [T, D], y_test [T]`` in the baselines' design, of the
    rows that miss no value."""
    train, test = complete_rows(pd.read_csv(train_csv), table), complete_rows(pd.read_csv(test_csv), table)
    design = Design(train, table)
    return design(train), targets(train, table), design(test), targets(test, table)


def linear(data: Prepared, table: Table, budget: float, seed: int) -> Dict[str, object]:
    from sklearn.linear_model import LinearRegression, LogisticRegression

    X, y, X_test, y_test = data
    if table.labels:
        model = LogisticRegression(max_iter=1000).fit(X, y)
        return dict(labels_scores(y_test, model.predict_proba(X_test)), iterations=int(model.n_iter_[0]))
    if table.classification:
        model = LogisticRegression(max_iter=1000).fit(X, y)
        return dict(class_scores(y_test, model.predict_proba(X_test)[:, 1]), iterations=int(model.n_iter_[0]))
    model = LinearRegression().fit(X, y)
    noise = np.std(y - model.predict(X))
    mean = model.predict(X_test)
    return dict(gaussian_scores(y_test, mean, np.full_like(mean, noise)), noise_std=float(noise))


def trees(data: Prepared, table: Table, budget: float, seed: int) -> Dict[str, object]:
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    X, y, X_test, y_test = data
    options = dict(max_iter=2000, early_stopping=True, validation_fraction=0.1, n_iter_no_change=20, random_state=seed)
    if table.labels:
        model = HistGradientBoostingClassifier(**options).fit(X, y)
        return dict(labels_scores(y_test, model.predict_proba(X_test)), iterations=int(model.n_iter_))
    if table.classification:
        model = HistGradientBoostingClassifier(**options).fit(X, y)
        return dict(class_scores(y_test, model.predict_proba(X_test)[:, 1]), iterations=int(model.n_iter_))
    held_out = np.random.default_rng(seed).random(len(y)) < 0.1
    model = HistGradientBoostingRegressor(**options).fit(X[~held_out], y[~held_out])
    noise = np.std(y[held_out] - model.predict(X[held_out]))
    mean = model.predict(X_test)
    scores = gaussian_scores(y_test, mean, np.full_like(mean, noise))
    return dict(scores, noise_std=float(noise), iterations=int(model.n_iter_))


def svgp(data: Prepared, table: Table, budget: float, seed: int, num_inducing: int) -> Dict[str, object]:
    import gpflow
    import tensorflow as tf
    from gpflow.keras import tf_keras
    from scipy.cluster.vq import kmeans2

    X, y, X_test, y_test = data
    rng = np.random.default_rng(seed)
    tf.random.set_seed(seed)
    sample = X[rng.choice(len(X), min(20_000, len(X)), replace=False)]
    Z, _ = kmeans2(sample, num_inducing, minit="++", seed=seed)
    y_mean, y_std = (0.0, 1.0) if table.classification else (y.mean(), y.std())
    Y = ((y - y_mean) / y_std)[:, None]
    likelihood = gpflow.likelihoods.Bernoulli() if table.classification else gpflow.likelihoods.Gaussian(0.1)
    kernel = gpflow.kernels.SquaredExponential(lengthscales=np.full(X.shape[1], np.sqrt(X.shape[1])))
    model = gpflow.models.SVGP(kernel, likelihood, Z, num_data=len(X), whiten=True)
    batches = iter(
        tf.data.Dataset.from_tensor_slices((X, Y)).repeat().shuffle(50_000, seed=seed).batch(10_000).prefetch(1)
    )
    loss = model.training_loss_closure(batches, compile=True)
    optimizer = tf_keras.optimizers.Adam(0.01)

    @tf.function
    def step():
        optimizer.minimize(loss, model.trainable_variables)

    began, steps = time.perf_counter(), 0
    while time.perf_counter() - began < budget:
        step()
        steps += 1
    training_seconds = time.perf_counter() - began
    means, variances = [], []
    for first in range(0, len(X_test), 10_000):
        mean, variance = model.predict_y(X_test[first : first + 10_000])
        means.append(mean.numpy()[:, 0])
        variances.append(variance.numpy()[:, 0])
    mean, variance = np.concatenate(means), np.concatenate(variances)
    if table.classification:
        scores = class_scores(y_test, mean)
    else:
        scores = gaussian_scores(y_test, mean * y_std + y_mean, np.sqrt(variance) * y_std)
    return dict(scores, steps=steps, training_seconds=training_seconds, num_inducing=num_inducing)


METHODS: Dict[str, Callable[..., Dict[str, object]]] = {
    "linear": linear,
    "trees": trees,
    "svgp100": lambda *args: svgp(*args, num_inducing=100),
    "svgp500": lambda *args: svgp(*args, num_inducing=500),
}


def run(method: str, name: str, train_csv: str, test_csv: str, budget: float, seed: int) -> Dict[str, object]:
    """Fit ``method`` on ``train_csv`` and score it on ``test_csv``; the scores, and the seconds
    spent reading and fitting (``fit_seconds``) and predicting."""
    table = TABLES[name]
    began = time.perf_counter()
    data = prepare(train_csv, test_csv, table)
    record = METHODS[method](data, table, budget, seed)
    return dict(record, seconds=time.perf_counter() - began, inputs=int(data[0].shape[1]))
