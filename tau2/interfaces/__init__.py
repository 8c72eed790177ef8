"""Doors into tau2 besides the runner: RL environments for either seat (`tau2.interfaces.gymnasium_env`,
extra `gym`; `tau2.interfaces.pettingzoo_env`, extra `pettingzoo`), a person playing a seat (`tau2 play`),
human annotation with Potato and τ²-bench results interoperability (`tau2 export` / `tau2 import`).

Importing this package loads none of the optional libraries; the RL action helpers live here.
"""

from tau2.interfaces._actions import message_action, parse_action, stop_action, tool_call_action

__all__ = ["message_action", "parse_action", "stop_action", "tool_call_action"]
