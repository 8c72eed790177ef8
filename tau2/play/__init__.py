"""`tau2 play`: a person plays one seat of a task in the terminal, and the session is saved as a run."""

from tau2.play._play import choose_setup as choose_play_setup
from tau2.play._play import play as play_session
from tau2.play._play import record as record_play
from tau2.play._terminal import SessionEnded, Terminal

__all__ = ["SessionEnded", "Terminal", "choose_play_setup", "play_session", "record_play"]
