"""Scores of predictive mixtures against held-out targets: log-likelihood, RMSE, CRPS, intervals."""
