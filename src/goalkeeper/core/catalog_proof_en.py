"""English messages of proof that cannot be forged: protected tests, checks that really ran,
todo gates as duties, honest exits and what the user hears at a stop."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # -- protected tests (goal verify) --------------------------------------------------------
    # -- checks that ran (cadence) ------------------------------------------------------------
    # -- todo gates ---------------------------------------------------------------------------
    # -- commitments --------------------------------------------------------------------------
    # -- honest exits and the truth at a stop -------------------------------------------------
}
