"""Reinforcement-learning environments: one seat of a task as a Gymnasium environment
(`tau2.rl.gymnasium_env`, extra `gym`) and both seats as a PettingZoo AEC game (`tau2.rl.pettingzoo_env`,
extra `pettingzoo`), with the text protocol of their actions.

Importing this package loads neither optional library; it holds the helpers that build actions.
"""

from tau2.rl._actions import message_action, parse_action, stop_action, tool_call_action

__all__ = ["message_action", "parse_action", "stop_action", "tool_call_action"]
