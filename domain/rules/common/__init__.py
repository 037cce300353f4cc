"""The kernel every rule system shares: the Protocol and base class, options, sheet checks."""
