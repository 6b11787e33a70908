"""Background workers on RQ: bot moves, the bot-move service, replay exports.

``queues`` (names, enqueueing by dotted name) is all the API imports;
``jobs`` holds the job functions; ``worker`` the command that runs them.
"""
