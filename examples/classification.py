"""Three-class classification with a robust-max likelihood (the paper's MNIST likelihood) on
synthetic 2-D data, trained with minibatches.

    python examples/classification.py
"""

import gpflow
import numpy as np

import gpflow_deep as gd

rng = np.random.default_rng(1)
X = rng.uniform(-3, 3, (1500, 2))
angle = np.arctan2(X[:, 1], X[:, 0]) + 0.3 * np.linalg.norm(X, axis=1)
Y = (np.floor(3 * (angle + np.pi) / (2 * np.pi)) % 3).astype(float)[:, None]  # a three-armed spiral
train, test = slice(0, 1200), slice(1200, None)

likelihood = gpflow.likelihoods.MultiClass(3, invlink=gpflow.likelihoods.RobustMax(3))
model = gd.build_deep_gp(X[train], Y[train], num_layers=2, likelihood=likelihood, num_inducing=50, hidden_width=2)
gd.fit(model, (X[train], Y[train]), 4000, batch_size=200, seed=0)

probabilities, _ = model.predict_y(X[test], seed=0)
accuracy = np.mean(np.argmax(probabilities, axis=1) == Y[test, 0])
log_density = np.mean(model.predict_log_density((X[test], Y[test]), seed=0))
print(f"test accuracy {accuracy:.3f}, test log-likelihood {log_density:.3f} per point")
