"""One module per ``micrograd`` subcommand (see ``micrograd.cli``)."""
