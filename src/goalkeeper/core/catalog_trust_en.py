"""English messages of the trust boundary: held goals, pinned settings, refused re-runs,
goalkeeper's own state and the hook transport. What the agent writes never widens what
goalkeeper runs; these texts tell the user and the agent what was held and how it is approved.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- hook transport -----------------------------------------------------------------------
}
