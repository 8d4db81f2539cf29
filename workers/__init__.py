"""The agent runtime: environments, actions, the step executor and the run loop.

Nothing in this package imports Django: the Celery task in `venus_rpa.runs` wires it to the
database through the `RunRecorder` protocol (see `workers.runner`).
"""
