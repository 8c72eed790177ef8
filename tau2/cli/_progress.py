"""How a run started from the command line reports: a progress bar on stderr, warnings as `warning:` lines."""

from __future__ import annotations

from tau2.cli._output import say
from tau2.runner import ProgressBar


class CommandProgress(ProgressBar):
    """The progress bar (unless disabled), and each warning on a line of its own on stderr."""

    def warning(self, message: str) -> None:
        """Print `warning: <message>` on stderr."""
        say(f"warning: {message}", err=True)
