"""Background workers on RQ: bot moves, the bot-move service, replay exports.

The workers import ``service`` and never the reverse: queue names and the
enqueue helpers live in ``service.jobs.names`` and ``service.jobs.queues``.
``jobs`` holds the job functions, ``runtime`` what they run on (built by
``service.ops.composition``), ``worker`` the command that runs them.
"""
