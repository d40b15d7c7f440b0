"""``python -m matchevals.cli``: the same as the ``matchevals`` command."""

from matchevals.cli import main

raise SystemExit(main())
