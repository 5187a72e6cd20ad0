"""``python -m micrograd`` is the ``micrograd`` command."""

import sys

from .cli import main

sys.exit(main())
