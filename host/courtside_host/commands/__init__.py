"""The ``courtside`` subcommands, one module each: ``add_arguments(parser)`` and ``run(args)``.

Only ``courtside_host.cli`` imports these; nothing in the libraries beside them does.
"""
