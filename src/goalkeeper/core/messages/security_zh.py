"""Messages about where goalkeeper keeps what it trusts and who may speak to it (zh): the state
folder outside the project, the channels that prove their origin, the host's sandbox."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- the state folder outside the project (issue 21 item 1) ---
    # (end of the state folder's messages)
    #
    #
    # --- channels that prove their origin (issue 21 item 2) ---
    # (end of the channels' messages)
    #
    #
    # --- the host's sandbox, set up and checked (issue 21 item 3) ---
    # (end of the sandbox's messages)
}
