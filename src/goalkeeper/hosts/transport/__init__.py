"""How a hook event reaches the engine: the warm hook server, in-process dispatch, the launcher
that finds goalkeeper, and whether a caller is the agent's shell. The lean client itself and its
channel stay at ``hosts/hook_client.py`` and ``hosts/hook_channel.py``: installed hook commands
name that path, and a package import would cost every hook."""
