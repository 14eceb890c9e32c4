"""What every model, layer and application part shares: the predictive mixture (in TensorFlow
and in numpy), the row-keyed noise, numerical checks and input validation."""
