"""Errors the runtime reports as a step's or run's reason (never as a bare traceback)."""


class StepError(Exception):
    """A step could not be done: missing or ambiguous target, failed assertion, bad input.

    The message is shown to users as the step's and run's reason, so it must say what was
    expected and what was found.
    """


class EnvironmentLost(Exception):
    """The browser, device or display went away mid-run."""


class ConfigurationError(Exception):
    """The run cannot start: a setting or definition is missing (says which)."""
